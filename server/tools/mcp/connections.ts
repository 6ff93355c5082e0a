import "server-only";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, ToolListChangedNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { env } from "@/server/env";
import { sealSecret, unsealSecret } from "@/server/lib/seal";
import { logger } from "@/server/logger";
import { mayConnectTo } from "@/server/net/public-address";
import { findMcpServerConnection, updateMcpServerTools, type McpServerConnectionRow } from "./repository";
import { toToolInfo, type McpToolInfo } from "./tool-info";

// Connections to MCP servers, made by this process (never by the agent's child CLI, so a server's
// secret never leaves it). One client per server per instance, opened on first use and reused;
// a call that fails below MCP (the server went away) drops the client, and the next call opens a
// new one. A server's notifications/tools/list_changed makes the pool read tools/list again and
// store it. Bounds: each request has the server's timeout, each server at most MAX_CONCURRENT
// calls at once from this instance (the rest wait their turn).

export const MCP_AUTH_PURPOSE = "mcp-auth";
const MAX_CONCURRENT = 8;
/** The most one answer to a request may carry; a bigger one breaks the connection. */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
const MAX_TOOL_PAGES = 20;
const CLIENT_INFO = { name: "dispatch", version: "0.1.0" };

/**
 * OAuth 2.1 client credentials for a server that asks for them: the token is fetched from
 * `issuer` (pinned at registration, so the secret never goes to another authorization server)
 * and refetched when the server answers 401.
 */
export type McpOAuth = { clientId: string; clientSecret: string; scope?: string; issuer: string };
/** A server's auth as registered: static headers (a bearer token is one), and/or OAuth client credentials. */
export type McpAuth = { headers: Record<string, string>; oauth?: McpOAuth };

export type McpConnectTarget = { url: string; auth: McpAuth; timeoutMs: number };

/** The URL is not one this server may connect to (loopback, private networks) unless allowed. */
export class McpUnreachableError extends Error {
  constructor(url: string, reason: string) {
    super(`${url}: the MCP server could not be reached (${reason})`);
    this.name = "McpUnreachableError";
  }
}

/** An answer went over MAX_RESPONSE_BYTES; its connection was dropped. */
export class McpResponseTooLargeError extends Error {
  constructor() {
    super(`The MCP server's answer was larger than ${MAX_RESPONSE_BYTES} bytes`);
    this.name = "McpResponseTooLargeError";
  }
}

/**
 * fetch for the SDK's transports: a host other than the server's (an OAuth authorization server
 * it advertises) is checked like the server's own address before anything is sent to it, and
 * answers to requests (POST) stop at MAX_RESPONSE_BYTES: past it the body errors and `onTooLarge`
 * hears of it, since the SDK may otherwise wait for the rest of an event stream until the request
 * times out. The long-lived notification stream (GET) is not bounded by size.
 */
export function guardedFetch(serverHost: string, onTooLarge: (err: McpResponseTooLargeError) => void = () => {}, onRefused: (err: McpUnreachableError) => void = () => {}): FetchLike {
  const allowed = new Set([serverHost]);
  return async (url, init) => {
    const host = new URL(url).hostname;
    if (!allowed.has(host)) {
      if (!(await mayConnectTo(host, env.RUNNER_ALLOWED_HOSTS))) {
        // The SDK wraps what its fetch throws; the caller hears the reason first-hand.
        const err = new McpUnreachableError(new URL(url).origin, "an authorization server must answer on a public address, or its host be listed in RUNNER_ALLOWED_HOSTS");
        onRefused(err);
        throw err;
      }
      allowed.add(host);
    }
    const res = await fetch(url, { ...init, redirect: "error" });
    if (init?.method !== "POST" || !res.body) return res;
    let seen = 0;
    const body = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen <= MAX_RESPONSE_BYTES) return controller.enqueue(chunk);
          const err = new McpResponseTooLargeError();
          onTooLarge(err);
          controller.error(err);
        },
      }),
    );
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** The sealed form of a server's auth. */
export function sealAuth(auth: McpAuth): string | null {
  if (Object.keys(auth.headers).length === 0 && !auth.oauth) return null;
  return sealSecret(MCP_AUTH_PURPOSE, JSON.stringify(auth));
}

/** The auth a registration sealed (registrations before OAuth sealed the header map alone). */
export function unsealAuth(sealed: string | null): McpAuth {
  if (!sealed) return { headers: {} };
  const value = JSON.parse(unsealSecret(MCP_AUTH_PURPOSE, sealed)) as Record<string, unknown>;
  if (typeof value.headers === "object" && value.headers !== null) return value as McpAuth;
  return { headers: value as Record<string, string> };
}

async function connectWith(transport: Transport, timeoutMs: number): Promise<Client> {
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  try {
    await client.connect(transport, { timeout: timeoutMs });
    return client;
  } catch (err) {
    await client.close().catch(() => {});
    throw err;
  }
}

// A server of the older HTTP+SSE transport answers Streamable HTTP's first POST with a 4xx (its
// endpoint takes GET), which is the sign to try that transport instead (the SDK's advice).
const refusedStreamableHttp = (err: unknown) => err instanceof StreamableHTTPError && typeof err.code === "number" && err.code >= 400 && err.code < 500 && err.code !== 401 && err.code !== 403;

/**
 * Opens a client over Streamable HTTP, or the older HTTP+SSE transport for a server that only
 * speaks that, refusing an address an admin could not register (server/net, RUNNER_ALLOWED_HOSTS).
 */
export async function openClient(target: McpConnectTarget, onTooLarge: (err: McpResponseTooLargeError) => void = () => {}): Promise<Client> {
  const url = new URL(target.url);
  if (!(await mayConnectTo(url.hostname, env.RUNNER_ALLOWED_HOSTS))) {
    throw new McpUnreachableError(target.url, "it must answer on a public address, or its host be listed in RUNNER_ALLOWED_HOSTS");
  }
  const { oauth } = target.auth;
  let refused: McpUnreachableError | undefined;
  const options = () => ({
    requestInit: { headers: target.auth.headers, redirect: "error" } satisfies RequestInit,
    fetch: guardedFetch(url.hostname, onTooLarge, (err) => (refused = err)),
    // A provider per transport: its token lives as long as the client it was fetched for.
    authProvider: oauth
      ? new ClientCredentialsProvider({ clientId: oauth.clientId, clientSecret: oauth.clientSecret, scope: oauth.scope, clientName: "dispatch", expectedIssuer: oauth.issuer })
      : undefined,
  });
  try {
    try {
      return await connectWith(new StreamableHTTPClientTransport(url, options()), target.timeoutMs);
    } catch (err) {
      if (!refusedStreamableHttp(err)) throw err;
      return await connectWith(new SSEClientTransport(url, options()), target.timeoutMs);
    }
  } catch (err) {
    if (refused) throw refused;
    if (err instanceof McpUnreachableError) throw err;
    // The SDK refuses to present the credentials to another authorization server than the pinned one.
    if (oauth && err instanceof Error && err.message.includes("is bound to authorization server")) {
      throw new McpUnreachableError(target.url, `it names an authorization server other than ${oauth.issuer}, the one registered; the client credentials were not sent`);
    }
    // The SDK's message may quote the server's answer; the cause's name is enough here.
    const name = err instanceof Error ? err.name : "connection failed";
    if (oauth && /Unauthorized|InvalidClient|InvalidGrant|InvalidScope|UnauthorizedClient/.test(name)) {
      throw new McpUnreachableError(target.url, `its authorization server refused Dispatch's client credentials: ${name}`);
    }
    throw new McpUnreachableError(target.url, name);
  }
}

/** Every tool the server lists (following its cursors, up to MAX_TOOL_PAGES pages). */
export async function listAllTools(client: Client, timeoutMs: number): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const answer = await client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
    tools.push(...answer.tools.map((t) => toToolInfo(t as Parameters<typeof toToolInfo>[0])));
    cursor = answer.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/** One server's client in this instance; `broken` rejects when an answer was too large. */
type Pooled = { updatedAt: number; client: Promise<Client>; broken: Promise<never>; active: number; waiting: (() => void)[] };
const pool = new Map<string, Pooled>();

function drop(serverId: string, entry: Pooled): void {
  if (pool.get(serverId) !== entry) return;
  pool.delete(serverId);
  void entry.client.then((c) => c.close()).catch(() => {});
}

function connect(row: McpServerConnectionRow): Pooled {
  let breaks: (err: McpResponseTooLargeError) => void = () => {};
  const broken = new Promise<never>((_, reject) => (breaks = reject));
  broken.catch(() => {});
  const client = openClient({ url: row.url, auth: unsealAuth(row.authSealed), timeoutMs: row.timeoutMs }, (err) => breaks(err)).then((opened) => {
    opened.onclose = () => drop(row.id, entry);
    opened.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      try {
        await updateMcpServerTools({ id: row.id, tools: await listAllTools(opened, row.timeoutMs) });
        logger.info({ mcpServer: row.name }, "MCP server's tools changed; tools/list read again");
      } catch (err) {
        logger.warn({ mcpServer: row.name, error: err instanceof Error ? err.name : String(err) }, "MCP tools/list after list_changed failed");
      }
    });
    return opened;
  });
  const entry: Pooled = { updatedAt: row.updatedAt.getTime(), active: 0, waiting: [], client, broken };
  // A connection that failed is not kept: the next call tries again.
  client.catch(() => drop(row.id, entry));
  return entry;
}

async function acquire(entry: Pooled): Promise<void> {
  if (entry.active < MAX_CONCURRENT) {
    entry.active++;
    return;
  }
  await new Promise<void>((resolve) => entry.waiting.push(resolve));
}

function release(entry: Pooled): void {
  const next = entry.waiting.shift();
  if (next) next();
  else entry.active--;
}

function pooled(row: McpServerConnectionRow): Pooled {
  const entry = pool.get(row.id);
  // A server edited since its client was opened (new URL or auth) gets a new client.
  if (entry && entry.updatedAt !== row.updatedAt.getTime()) drop(row.id, entry);
  const live = pool.get(row.id) ?? connect(row);
  pool.set(row.id, live);
  return live;
}

/**
 * Calls one tool on a registered server through the pool; throws when the server cannot answer.
 * A call that fails on a client opened earlier (the server restarted, its session is gone) is
 * made once more on a new client when `retry` allows it (reads: repeating them changes nothing).
 */
export async function callMcpTool(opts: { serverId: string; tool: string; input: Record<string, unknown>; retry: boolean; signal?: AbortSignal }): Promise<CallToolResult> {
  const row = await findMcpServerConnection({ id: opts.serverId });
  if (!row) throw new McpUnreachableError("(removed)", "the server was removed");
  const reused = pool.has(row.id);
  try {
    return await callOnce(row, pooled(row), opts);
  } catch (err) {
    // Only a connection that broke is worth a second try: not an answer, a timeout or an oversized answer.
    const broke = err instanceof McpError ? err.code === ErrorCode.ConnectionClosed : !(err instanceof McpResponseTooLargeError);
    if (!opts.retry || !reused || opts.signal?.aborted || !broke) throw err;
    return callOnce(row, pooled(row), opts);
  }
}

async function callOnce(row: McpServerConnectionRow, entry: Pooled, opts: { tool: string; input: Record<string, unknown>; signal?: AbortSignal }): Promise<CallToolResult> {
  await acquire(entry);
  try {
    const client = await entry.client;
    const call = client.callTool({ name: opts.tool, arguments: opts.input }, undefined, { timeout: row.timeoutMs, signal: opts.signal });
    return (await Promise.race([call, entry.broken])) as CallToolResult;
  } catch (err) {
    // An error the server answered leaves the session as it was; anything else may have broken it.
    if (!(err instanceof McpError) || err.code === ErrorCode.RequestTimeout || err.code === ErrorCode.ConnectionClosed) drop(row.id, entry);
    throw err;
  } finally {
    release(entry);
  }
}
