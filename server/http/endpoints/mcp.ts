import "server-only";
import { authenticateRequest } from "../../auth/session";
import { AppError, toAppError } from "../../kernel/errors";
import { serveMcpRequest, type McpClientCaller } from "../../mcp-serve/service";
import { authenticateAccessToken, isAccessToken, oauthUrls } from "../../oauth/service";
import { endpoint } from "../endpoint";
import { errorResponse } from "../json";
import { requestOrigin } from "../origin";

// /api/v1/mcp: Dispatch as an MCP server (Streamable HTTP, stateless; docs/mcp.md). POST carries
// the JSON-RPC messages; with no sessions there is no stream to open (GET) or session to end
// (DELETE), which the transport's spec answers with 405.
//
// The caller is an API key's owner or an OAuth client's user (server/oauth). A request without
// either is answered 401 with `WWW-Authenticate: Bearer resource_metadata=…`, which is how an MCP
// client finds the authorization server (RFC 9728 §5.1); a token that is not live adds
// `error="invalid_token"`. A browser session is not enough.

async function mcpCaller(req: Request, origin: string): Promise<McpClientCaller> {
  const header = req.headers.get("authorization");
  if (header === null) throw new AppError("UNAUTHORIZED", "Connect with OAuth, or send Authorization: Bearer <API key>");
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  if (token && isAccessToken(token)) {
    const owner = await authenticateAccessToken(token, origin);
    return { userId: owner.userId, apiKeyHash: null, runId: `mcp:oauth:${owner.grantId}` };
  }
  const principal = await authenticateRequest(req);
  return { userId: principal.userId, apiKeyHash: principal.apiKeyHash ?? null, runId: `mcp:${principal.apiKeyId ?? "key"}` };
}

/** The house's error answer; a 401 also says where to get a token. */
async function refuseMcp(err: unknown, req: Request): Promise<Response> {
  const error = toAppError(err, { path: new URL(req.url).pathname });
  const response = errorResponse(error, req.headers.get("x-request-id") ?? undefined);
  if (error.status !== 401) return response;
  const invalid = req.headers.has("authorization") ? 'error="invalid_token", ' : "";
  response.headers.set("www-authenticate", `Bearer ${invalid}resource_metadata="${oauthUrls(requestOrigin(req)).resourceMetadata}"`);
  return response;
}

export const mcpEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/mcp",
  auth: "none",
  handle: async ({ req, origin }) => serveMcpRequest(req, await mcpCaller(req, origin())),
  refuse: refuseMcp,
});

const noSessions = () =>
  Response.json({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: this MCP server is stateless; send messages with POST" }, id: null }, { status: 405, headers: { allow: "POST" } });

export const mcpStreamEndpoint = endpoint({ method: "GET", path: "/api/v1/mcp", auth: "none", handle: async () => noSessions() });

export const mcpSessionEndpoint = endpoint({ method: "DELETE", path: "/api/v1/mcp", auth: "none", handle: async () => noSessions() });
