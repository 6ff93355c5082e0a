import { authorizationServerEndpoint } from "@/server/http/endpoints/oauth";

export const dynamic = "force-dynamic";
export const GET = authorizationServerEndpoint.handler;
