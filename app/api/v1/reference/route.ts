import { apiReferenceEndpoint } from "@/server/http/endpoints/openapi";

export const dynamic = "force-dynamic";
export const GET = apiReferenceEndpoint.handler;
