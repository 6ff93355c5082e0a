import { mcpEndpoint, mcpSessionEndpoint, mcpStreamEndpoint } from "@/server/http/endpoints/mcp";

export const dynamic = "force-dynamic";
export const POST = mcpEndpoint.handler;
export const GET = mcpStreamEndpoint.handler;
export const DELETE = mcpSessionEndpoint.handler;
