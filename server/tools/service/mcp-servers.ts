import "server-only";
import { z } from "zod";
import { AppError } from "../../kernel/errors";
import { discoverOAuthServerInfo } from "@modelcontextprotocol/sdk/client/auth.js";
import { findUserByEmail } from "../../accounts/repository/users";
import { guardedFetch, listAllTools, McpUnreachableError, openClient, sealAuth, unsealAuth, type McpAuth, type McpOAuth } from "../mcp/connections";
import {
  deleteMcpGrant,
  deleteMcpServer,
  findMcpServerByName,
  findMcpServerConnection,
  insertMcpGrant,
  insertMcpServer,
  listMcpGrants,
  listMcpServers,
  updateMcpServerTools,
  type McpServerRow,
} from "../mcp/repository";
import { listMcpToolStats, type McpToolStat } from "../repository/mcp-stats";
import { kindOfMcpTool, MCP_SERVER_NAME, type McpToolInfo } from "../mcp/tool-info";
import { PROJECT_CLI_MODULES } from "../project-cli/actions";
import { SKILLS_MODULE } from "../project-cli/skills";

// MCP servers as tool sources, for admins (npm run admin, tRPC): register (the URL checked like a
// runner's, tools/list read at once), list, refresh, remove, and grant to a user or a binding.
// The auth given at registration is sealed and never answered again (docs/mcp.md).

const DEFAULT_TIMEOUT_MS = 30_000;

export const registerMcpServerSchema = z.strictObject({
  name: z.string().regex(MCP_SERVER_NAME, "a lower-case name of letters, digits and _ (at most 32), starting with a letter"),
  url: z.string().min(1).max(2_000),
  bearerToken: z.string().min(1).max(8_000).optional(),
  headers: z
    .record(z.string().regex(/^[A-Za-z0-9-]{1,64}$/, "a header name"), z.string().max(8_000).regex(/^[^\r\n]*$/, "one line"))
    .optional(),
  /** OAuth 2.1 client credentials, for a server whose authorization server issues tokens to Dispatch. */
  oauth: z
    .strictObject({
      clientId: z.string().min(1).max(500),
      clientSecret: z.string().min(1).max(8_000),
      scope: z.string().max(1_000).regex(/^[^\r\n]*$/, "one line").optional(),
      /** The authorization server's issuer URL; found from the server's metadata (RFC 9728) when left out. */
      issuer: z.url({ protocol: /^https?$/, error: "the authorization server's issuer, an http(s) URL" }).max(2_000).optional(),
    })
    .optional(),
  timeoutMs: z.number().int().min(1_000).max(300_000).optional(),
});

export type McpServerView = {
  id: string;
  name: string;
  url: string;
  /** Whether auth was given; the auth itself is never shown again. */
  hasAuth: boolean;
  timeoutMs: number;
  tools: (McpToolInfo & { kind: "read" | "write" })[];
  toolsAt: Date;
};

const view = (row: McpServerRow): McpServerView => ({
  id: row.id,
  name: row.name,
  url: row.url,
  hasAuth: row.hasAuth,
  timeoutMs: row.timeoutMs,
  tools: row.tools.map((t) => ({ ...t, kind: kindOfMcpTool(t).kind })),
  toolsAt: row.toolsAt,
});

/** An MCP endpoint URL: http(s), no credentials, query or fragment (secrets go in the auth). */
function normalizeUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new AppError("BAD_REQUEST", `MCP server URL "${raw}" is not a valid URL; give its Streamable HTTP endpoint, for example https://mcp.example.com/mcp`, { field: "url" });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new AppError("BAD_REQUEST", "MCP server URL must use http or https", { field: "url" });
  if (url.username || url.password || url.search || url.hash) {
    throw new AppError("BAD_REQUEST", "MCP server URL must not carry credentials, a query or a fragment; pass a token or headers as auth", { field: "url" });
  }
  return url.href;
}

async function fetchTools(url: string, auth: McpAuth, timeoutMs: number): Promise<McpToolInfo[]> {
  let client;
  try {
    client = await openClient({ url, auth, timeoutMs });
    return await listAllTools(client, timeoutMs);
  } catch (err) {
    if (err instanceof McpUnreachableError) throw new AppError("BAD_REQUEST", err.message, { field: "url" });
    throw new AppError("BAD_REQUEST", `${url}: tools/list failed (${err instanceof Error ? err.name : "no answer"})`, { field: "url" });
  } finally {
    await client?.close().catch(() => {});
  }
}

/**
 * The authorization server client credentials go to: the one the admin named, else the one the
 * MCP server advertises now (RFC 9728), pinned so that a server changing its metadata later cannot
 * have the secret sent elsewhere.
 */
async function pinnedOAuth(url: string, oauth: NonNullable<z.infer<typeof registerMcpServerSchema>["oauth"]>): Promise<McpOAuth> {
  if (oauth.issuer) return { ...oauth, issuer: oauth.issuer };
  try {
    let refused: McpUnreachableError | undefined;
    const fetchFn = guardedFetch(new URL(url).hostname, undefined, (err) => (refused = err));
    const info = await discoverOAuthServerInfo(url, { fetchFn }).catch((err: unknown) => Promise.reject(refused ?? err));
    return { ...oauth, issuer: String(info.authorizationServerUrl) };
  } catch (err) {
    const reason = err instanceof McpUnreachableError ? err.message : "it advertises no OAuth authorization server (RFC 9728 or RFC 8414 metadata)";
    throw new AppError("BAD_REQUEST", `${url}: ${reason}; give oauth.issuer, the authorization server's issuer URL`, { field: "oauth.issuer" });
  }
}

export async function registerMcpServer(input: z.input<typeof registerMcpServerSchema>): Promise<McpServerView> {
  const { name, url: rawUrl, bearerToken, headers = {}, oauth, timeoutMs = DEFAULT_TIMEOUT_MS } = registerMcpServerSchema.parse(input);
  if (name === SKILLS_MODULE || PROJECT_CLI_MODULES.includes(name)) {
    throw new AppError("CONFLICT", `${name} is a built-in skill's name; give the server another`, { field: "name" });
  }
  const url = normalizeUrl(rawUrl);
  if (oauth && (bearerToken || Object.keys(headers).some((h) => h.toLowerCase() === "authorization"))) {
    throw new AppError("BAD_REQUEST", "Give either oauth client credentials or a bearer token (an Authorization header), not both", { field: "oauth" });
  }
  const auth: McpAuth = { headers: { ...headers, ...(bearerToken ? { authorization: `Bearer ${bearerToken}` } : {}) } };
  if (oauth) auth.oauth = await pinnedOAuth(url, oauth);
  const tools = await fetchTools(url, auth, timeoutMs);
  const row = await insertMcpServer({ name, url, authSealed: sealAuth(auth), timeoutMs, tools });
  if (!row) throw new AppError("CONFLICT", `An MCP server named ${name} is registered already`, { field: "name" });
  return view(row);
}

/** Reads tools/list again (after the server changed while no connection was open to hear it). */
export async function refreshMcpServer({ name }: { name: string }): Promise<McpServerView> {
  const row = await findMcpServerByName({ name });
  const connection = row && (await findMcpServerConnection({ id: row.id }));
  if (!row || !connection) throw new AppError("NOT_FOUND", `No MCP server named ${name}`);
  const tools = await fetchTools(connection.url, unsealAuth(connection.authSealed), connection.timeoutMs);
  await updateMcpServerTools({ id: row.id, tools });
  return view({ ...row, tools, toolsAt: new Date() });
}

export type ToolCalls = { calls: number; failures: number; avgMs: number };
/** The server's last call (its time) and last failure, from its tools' counts; null before its first call. */
export type McpServerHealth = { lastCallAt: Date; lastMs: number; lastError: string | null; lastErrorAt: Date | null };
export type McpServerListing = Omit<McpServerView, "tools"> & { tools: (McpServerView["tools"][number] & { stats: ToolCalls | null })[]; health: McpServerHealth | null };

export async function listMcpServerViews(): Promise<{ servers: McpServerListing[]; grants: Awaited<ReturnType<typeof listMcpGrants>> }> {
  const [servers, grants, stats] = await Promise.all([listMcpServers(), listMcpGrants(), listMcpToolStats()]);
  return { servers: servers.map((row) => withStats(view(row), stats.filter((s) => s.serverId === row.id))), grants };
}

function withStats(server: McpServerView, stats: McpToolStat[]): McpServerListing {
  const byTool = new Map(stats.map((s) => [s.tool, s]));
  const tools = server.tools.map((t) => {
    const s = byTool.get(t.name);
    return { ...t, stats: s ? { calls: s.calls, failures: s.failures, avgMs: s.avgMs } : null };
  });
  const last = stats.reduce<McpToolStat | null>((a, b) => (!a || b.lastCallAt > a.lastCallAt ? b : a), null);
  const failed = stats.reduce<McpToolStat | null>((a, b) => (b.lastErrorAt && (!a?.lastErrorAt || b.lastErrorAt > a.lastErrorAt) ? b : a), null);
  const health = last ? { lastCallAt: last.lastCallAt, lastMs: last.lastMs, lastError: failed?.lastError ?? null, lastErrorAt: failed?.lastErrorAt ?? null } : null;
  return { ...server, tools, health };
}

export async function removeMcpServer({ name }: { name: string }): Promise<void> {
  if (!(await deleteMcpServer({ name }))) throw new AppError("NOT_FOUND", `No MCP server named ${name}`);
}

/** Lets one user, or one binding's runs, use the server (only `tools`, when given). */
export async function grantMcpServer(opts: { name: string; email?: string; bindingId?: string; tools?: readonly string[] }): Promise<{ id: string }> {
  if ((opts.email === undefined) === (opts.bindingId === undefined)) throw new AppError("BAD_REQUEST", "Grant a server to one user (email) or one binding, not both or neither");
  const server = await findMcpServerByName({ name: opts.name });
  if (!server) throw new AppError("NOT_FOUND", `No MCP server named ${opts.name}`);
  const unknown = (opts.tools ?? []).filter((t) => !server.tools.some((s) => s.name === t));
  if (unknown.length > 0) throw new AppError("BAD_REQUEST", `${opts.name} has no tool ${unknown.join(", ")}; its tools: ${server.tools.map((t) => t.name).join(", ")}`, { field: "tools" });
  let userId: string | null = null;
  if (opts.email !== undefined) {
    const user = await findUserByEmail({ email: opts.email.toLowerCase() });
    if (!user) throw new AppError("NOT_FOUND", `No user with email ${opts.email}`);
    userId = user.id;
  }
  return { id: await insertMcpGrant({ serverId: server.id, userId, bindingId: opts.bindingId ?? null, tools: opts.tools ?? [] }) };
}

export async function revokeMcpGrant({ id }: { id: string }): Promise<void> {
  if (!(await deleteMcpGrant({ id }))) throw new AppError("NOT_FOUND", `No MCP grant ${id}`);
}
