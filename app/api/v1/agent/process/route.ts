import { agentProcessEndpoint } from "@/server/http/endpoints/agent-api";

export const dynamic = "force-dynamic";
export const maxDuration = 300;
export const POST = agentProcessEndpoint.handler;
