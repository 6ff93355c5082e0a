// MCP servers for tests, over Streamable HTTP on loopback: server-everything from npm (its own
// process) and "tickets", a small server built with the SDK for what server-everything lacks:
// bearer auth, a destructive and a non-idempotent tool, an answer too large, tools/list_changed,
// going down and back.
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import path from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { freePort } from "@/scripts/lib/embedded-postgres";
import { waitFor } from "./wait";

export type EverythingServer = { url: string; stop(): Promise<void> };

/** `mcp-server-everything streamableHttp` on a free port (endpoint /mcp), or its older HTTP+SSE transport (/sse). */
export async function startEverythingServer(transport: "streamableHttp" | "sse" = "streamableHttp"): Promise<EverythingServer> {
  const port = await freePort();
  const entry = path.resolve(import.meta.dirname, "../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
  const child: ChildProcess = spawn(process.execPath, [entry, transport], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
  let output = "";
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(() => /(listening|running) on port/.test(output) || child.exitCode !== null, 30_000);
  if (child.exitCode !== null) throw new Error(`server-everything exited: ${output}`);
  return {
    url: `http://127.0.0.1:${port}/${transport === "sse" ? "sse" : "mcp"}`,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

export type TicketsServer = {
  url: string;
  /** Calls of create_ticket that reached the server. */
  created: number;
  /** Every Authorization header the server was sent. */
  authorizations: string[];
  /** Adds the tool `close_ticket` and tells every connected client (notifications/tools/list_changed). */
  addCloseTool(): Promise<void>;
  /** Stops answering and drops every connection; `start` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** With `oauth`: its authorization server's issuer URL, the tokens it issued, and a way to void them all. */
  issuer: string;
  tokensIssued: number;
  voidTokens(): void;
};

/** Client credentials the tickets server's own authorization server accepts (client_secret_basic). */
export type TicketsOAuth = { clientId: string; clientSecret: string; /** Advertise this authorization server instead of its own. */ advertise?: string };

const TOOLS: Tool[] = [
  {
    name: "find_ticket",
    description: "Finds a ticket by its id.",
    inputSchema: { type: "object", properties: { id: { type: "string", description: "The ticket id" } }, required: ["id"] },
    annotations: { readOnlyHint: true },
  },
  {
    name: "create_ticket",
    description: "Opens a ticket.",
    inputSchema: { type: "object", properties: { title: { type: "string" }, priority: { type: "integer", minimum: 1, maximum: 3 } }, required: ["title"] },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  },
  {
    name: "export_tickets",
    description: "Exports every ticket (5 MB of text).",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: "delete_ticket",
    description: "Deletes a ticket.",
    inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    annotations: { readOnlyHint: false, destructiveHint: true },
  },
];

/** The tickets server; it answers 401 without `Authorization: Bearer <token>`. */
export async function startTicketsServer({ token, oauth }: { token: string; oauth?: TicketsOAuth }): Promise<TicketsServer> {
  const tools = [...TOOLS];
  const sessions = new Map<string, { server: Server; transport: StreamableHTTPServerTransport }>();
  const sockets = new Set<Socket>();
  const state: TicketsServer = {
    url: "",
    created: 0,
    authorizations: [],
    async addCloseTool() {
      tools.push({ name: "close_ticket", description: "Closes a ticket.", inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] }, annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false } });
      await Promise.all([...sessions.values()].map((s) => s.server.sendToolListChanged().catch(() => {})));
    },
    stop: async () => {},
    start: async () => {},
    issuer: "",
    tokensIssued: 0,
    voidTokens: () => issued.clear(),
  };
  // With `oauth`, the bearer tokens it takes are those its authorization server issued.
  const issued = new Set<string>();
  const authorization = oauth ? await startAuthorizationServer(oauth, (t) => (issued.add(t), state.tokensIssued++)) : null;
  state.issuer = authorization?.issuer ?? "";

  function newSession(): { server: Server; transport: StreamableHTTPServerTransport } {
    const server = new Server({ name: "tickets", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, (request) => {
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      switch (request.params.name) {
        case "find_ticket":
          return { content: [{ type: "text", text: `Ticket ${String(args.id)}: printer on fire` }], structuredContent: { id: args.id, title: "Printer on fire", status: "open" } };
        case "create_ticket":
          state.created++;
          return { content: [{ type: "text", text: `Opened ticket T-${state.created}: ${String(args.title)}` }] };
        case "export_tickets":
          return { content: [{ type: "text", text: "x".repeat(5 * 1024 * 1024) }] };
        case "delete_ticket":
          return { content: [{ type: "text", text: `Deleted ticket ${String(args.id)}` }] };
        case "close_ticket":
          return { content: [{ type: "text", text: `Closed ticket ${String(args.id)}` }] };
        default:
          return { content: [{ type: "text", text: `No tool ${request.params.name}` }], isError: true };
      }
    });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { server, transport }),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    return { server, transport };
  }

  const httpServer = http.createServer((req, res) => {
    if (oauth && req.url?.startsWith("/.well-known/oauth-protected-resource")) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ resource: state.url, authorization_servers: [oauth.advertise ?? state.issuer] }));
      return;
    }
    state.authorizations.push(req.headers.authorization ?? "");
    const bearer = req.headers.authorization?.replace(/^Bearer /, "") ?? "";
    if (oauth ? !issued.has(bearer) : bearer !== token) {
      const challenge = oauth ? { "www-authenticate": `Bearer resource_metadata="${new URL(state.url).origin}/.well-known/oauth-protected-resource"` } : {};
      res.writeHead(401, { "content-type": "application/json", ...challenge }).end(JSON.stringify({ error: "unauthorized" }));
      return;
    }
    const id = req.headers["mcp-session-id"];
    const known = typeof id === "string" ? sessions.get(id) : undefined;
    if (known) return void known.transport.handleRequest(req, res);
    // A session this server does not know (it restarted): the client must start a new one.
    if (typeof id === "string") return void res.writeHead(404).end();
    if (req.method !== "POST") return void res.writeHead(400).end();
    const session = newSession();
    void session.server.connect(session.transport).then(() => session.transport.handleRequest(req, res));
  });
  httpServer.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  const listen = (port: number) => new Promise<void>((resolve) => httpServer.listen(port, "127.0.0.1", () => resolve()));
  await listen(0);
  const { port } = httpServer.address() as AddressInfo;
  state.url = `http://127.0.0.1:${port}/mcp`;
  state.stop = async () => {
    await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => {})));
    sessions.clear();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    await authorization?.stop();
  };
  state.start = () => listen(port);
  return state;
}

/**
 * A small OAuth 2.1 authorization server for machine clients: its RFC 8414 metadata, and a token
 * endpoint that grants client_credentials to the one client it knows (client_secret_basic).
 */
async function startAuthorizationServer(client: TicketsOAuth, onIssued: (token: string) => void): Promise<{ issuer: string; stop(): Promise<void> }> {
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString("base64")}`;
  const server = http.createServer((req, res) => {
    const json = (status: number, body: object) => res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(body));
    if (req.method === "GET" && req.url?.startsWith("/.well-known/oauth-authorization-server")) {
      return json(200, { issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, grant_types_supported: ["client_credentials"], token_endpoint_auth_methods_supported: ["client_secret_basic"], response_types_supported: ["code"] });
    }
    if (req.method !== "POST" || req.url !== "/token") return json(404, { error: "not_found" });
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      if (req.headers.authorization !== basic) return json(401, { error: "invalid_client" });
      if (new URLSearchParams(body).get("grant_type") !== "client_credentials") return json(400, { error: "unsupported_grant_type" });
      const accessToken = `at-${randomUUID()}`;
      onIssued(accessToken);
      json(200, { access_token: accessToken, token_type: "Bearer", expires_in: 3600 });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { issuer, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A tickets server registered in Dispatch under `name` and granted to `email`; `dispose` unregisters and stops it. */
export async function startGrantedTicketsServer({ name, token, email }: { name: string; token: string; email: string }): Promise<{ tickets: TicketsServer; dispose(): Promise<void> }> {
  const { grantMcpServer, registerMcpServer, removeMcpServer } = await import("@/server/tools/service/mcp-servers");
  const tickets = await startTicketsServer({ token });
  await registerMcpServer({ name, url: tickets.url, bearerToken: token });
  await grantMcpServer({ name, email });
  return {
    tickets,
    async dispose() {
      await removeMcpServer({ name }).catch(() => {});
      await tickets.stop();
    },
  };
}
