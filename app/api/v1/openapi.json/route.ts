import { openApiEndpoint } from "@/server/http/endpoints/openapi";

export const dynamic = "force-dynamic";
export const GET = openApiEndpoint.handler;
