import { cancelAgentResponseEndpoint } from "@/server/http/endpoints/agent-api";

export const dynamic = "force-dynamic";
export const POST = cancelAgentResponseEndpoint.handler;
