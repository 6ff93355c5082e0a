import { apiReferenceScriptEndpoint } from "@/server/http/endpoints/openapi";

export const dynamic = "force-dynamic";
export const GET = apiReferenceScriptEndpoint.handler;
