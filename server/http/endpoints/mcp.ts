import "server-only";
import { serveMcpRequest } from "../../mcp-serve/service";
import { endpoint } from "../endpoint";

// /api/v1/mcp: Dispatch as an MCP server (Streamable HTTP, stateless; docs/mcp.md). POST carries
// the JSON-RPC messages; with no sessions there is no stream to open (GET) or session to end
// (DELETE), which the transport's spec answers with 405.

export const mcpEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/mcp",
  auth: "caller",
  handle: ({ req, principal }) => serveMcpRequest(req, principal),
});

const noSessions = () =>
  Response.json({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: this MCP server is stateless; send messages with POST" }, id: null }, { status: 405, headers: { allow: "POST" } });

export const mcpStreamEndpoint = endpoint({ method: "GET", path: "/api/v1/mcp", auth: "none", handle: async () => noSessions() });

export const mcpSessionEndpoint = endpoint({ method: "DELETE", path: "/api/v1/mcp", auth: "none", handle: async () => noSessions() });
