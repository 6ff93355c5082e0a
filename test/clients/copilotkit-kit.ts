// The version-independent half of the CopilotKit harness. Each nested project (copilotkit-175/,
// copilotkit-175-agui1/, copilotkitnext-154/) has a kit.ts that imports its own packages and
// wires them through `copilotKitHarness`: module resolution starts at the importing file, so the
// packages must be imported from inside the project folder that installed them.
//
// The chain under test, all on default settings:
//   CopilotKitCore (headless, in this process, behind a minimal `window`)
//     -> HTTP -> CopilotRuntime (its default InMemoryAgentRunner) on 127.0.0.1, started here
//     -> HttpAgent (the runtime's agents map) -> HTTP -> Dispatch POST /api/v1/ag-ui
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { waitFor } from "@/test/wait";

export type KitMessage = { id: string; role: string; content?: unknown; metadata?: Record<string, unknown>; toolCallId?: string };

/** What the tests use of an AG-UI agent as the core hands it out (a ProxiedCopilotRuntimeAgent). */
export interface KitAgent {
  threadId: string;
  readonly messages: KitMessage[];
  /** The agent's shared state (CopilotKit's useCoAgent / useAgent state). */
  readonly state: Record<string, unknown>;
  setState(state: Record<string, unknown>): void;
  addMessage(message: { id: string; role: "user"; content: string }): void;
  detachActiveRun(): Promise<void>;
  subscribe(subscriber: {
    onRunStartedEvent?: (p: { event: { runId: string } }) => void;
    onToolCallResultEvent?: (p: { event: { metadata?: Record<string, unknown> } & Record<string, unknown> }) => void;
  }): { unsubscribe(): void };
}

/** What the tests use of CopilotKitCore: the calls a chat UI makes. */
export interface KitCore {
  readonly agents: Record<string, unknown>;
  runAgent(params: { agent: KitAgent }): Promise<unknown>;
  connectAgent(params: { agent: KitAgent }): Promise<unknown>;
  stopAgent(params: { agent: KitAgent }): void;
  subscribe(subscriber: { onError?: (e: { error: Error; code: string }) => void }): unknown;
}

export type KitWiring = {
  /** The runtime's request handler, with an HttpAgent for Dispatch as its "default" agent. */
  runtime(agentUrl: string, headers: Record<string, string>): { fetch(request: Request): Response | Promise<Response> };
  /** A fresh headless core talking to the runtime at `runtimeUrl`. */
  core(runtimeUrl: string): KitCore;
};

export const AGENT_ID = "default";
export const RUNTIME_PATH = "/api/copilotkit";

// The runtime and core send usage telemetry unless told not to; this network reaches no one.
process.env.COPILOTKIT_TELEMETRY_DISABLED = "true";

/**
 * The core only connects to a runtime in a browser (`typeof window !== "undefined"`) and reads
 * `window.location` to resolve URLs; this is all of `window` it needs to run headless in Node.
 */
function ensureWindow(): void {
  const g = globalThis as { window?: unknown };
  g.window ??= { location: { href: "http://127.0.0.1/", origin: "http://127.0.0.1" } };
}

/** Serves a fetch-style handler on 127.0.0.1; a client that goes away aborts the request's signal. */
async function serve(handler: (request: Request) => Response | Promise<Response>): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = http.createServer(async (req, res) => {
    const gone = new AbortController();
    res.once("close", () => gone.abort());
    try {
      const parts: Buffer[] = [];
      for await (const part of req) parts.push(part as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const request = new Request(new URL(req.url ?? "/", "http://127.0.0.1"), { method: req.method, headers, body: hasBody ? Buffer.concat(parts) : undefined, signal: gone.signal });
      const response = await handler(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (!response.body) return void res.end();
      const reader = response.body.getReader();
      res.once("close", () => void reader.cancel().catch(() => {}));
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) res.write(chunk.value);
      res.end();
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(err instanceof Error ? err.message : String(err));
    }
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** One chat "tab": a fresh core, its agent mounted on a thread the way CopilotChat mounts it. */
export class ChatTab {
  /** Errors the core reported (it reports run failures to subscribers instead of throwing). */
  readonly errors: string[] = [];
  /** The runs the agent saw start, by the runId in their RUN_STARTED. */
  readonly runIds: string[] = [];
  /** Every TOOL_CALL_RESULT event the agent applied. */
  readonly toolResults: ({ metadata?: Record<string, unknown> } & Record<string, unknown>)[] = [];
  /** Settles when the mount's connectAgent ends (at once on an idle thread, at the run's end on a busy one). */
  connected: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly core: KitCore,
    readonly agent: KitAgent,
  ) {
    core.subscribe({ onError: ({ error, code }) => void this.errors.push(`${code}: ${error.message}`) });
    agent.subscribe({
      onRunStartedEvent: ({ event }) => void this.runIds.push(event.runId),
      onToolCallResultEvent: ({ event }) => void this.toolResults.push(event),
    });
  }

  /** Opens a tab: waits for the runtime's agent list, puts the agent on `threadId` and connects it. */
  static async open(wiring: KitWiring, runtimeUrl: string, threadId: string): Promise<ChatTab> {
    ensureWindow();
    const core = wiring.core(runtimeUrl);
    await waitFor(() => core.agents[AGENT_ID] !== undefined, 10_000);
    const tab = new ChatTab(core, core.agents[AGENT_ID] as KitAgent);
    tab.agent.threadId = threadId;
    tab.connected = core.connectAgent({ agent: tab.agent });
    return tab;
  }

  /** Sends a user message as a chat input does; resolves when the run is over, with the errors the core reported meanwhile. */
  async trySend(text: string): Promise<string[]> {
    const before = this.errors.length;
    this.agent.addMessage({ id: randomUUID(), role: "user", content: text });
    await this.core.runAgent({ agent: this.agent });
    return this.errors.slice(before);
  }

  /** `trySend`, failing when the core reported an error. */
  async send(text: string): Promise<void> {
    const errors = await this.trySend(text);
    if (errors.length > 0) throw new Error(`the core reported: ${errors.join("; ")}`);
  }

  /** The stop button. */
  stop(): void {
    this.core.stopAgent({ agent: this.agent });
  }

  /** Unmounts the chat (a reload or a closed tab): the agent lets go of its stream. */
  close(): Promise<void> {
    return this.agent.detachActiveRun();
  }

  /** The text of the latest assistant message. */
  lastAnswer(): string {
    const last = this.agent.messages.findLast((m) => m.role === "assistant");
    return typeof last?.content === "string" ? last.content : "";
  }
}

/** Starts the CopilotKit runtime on 127.0.0.1 with Dispatch as its default agent. */
export async function startRuntime(wiring: KitWiring, agentUrl: string, apiKey: string): Promise<{ url: string; close(): Promise<void> }> {
  const app = wiring.runtime(agentUrl, { Authorization: `Bearer ${apiKey}` });
  const server = await serve((request) => app.fetch(request));
  return { url: `${server.url}${RUNTIME_PATH}`, close: server.close };
}
