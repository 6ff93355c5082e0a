import { mcpProtectedResourceEndpoint } from "@/server/http/endpoints/oauth";

export const dynamic = "force-dynamic";
export const GET = mcpProtectedResourceEndpoint.handler;
