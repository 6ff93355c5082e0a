// The runner side of the HTTP transport: GET {base}/runners lists the manifests, POST {base}/run
// streams one run's results as NDJSON. The host authenticates with the runner secret and
// cancels a run by closing the connection, which fires the run's AbortSignal.
import { createHash, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { runRequestSchema, type AgentRunRequest } from "../../server/protocols/runner/context";
import { describeIssues } from "../../server/protocols/runner/manifest";
import type { RunnerDefinition, RunTools } from "./define-runner";
import { createHostClient, type HostClient } from "./host-client";
import { isTerminal, RawLine, runCompleted, runFailed, type ResultDraft, type RunOutput } from "./results";

/** A run request (its context inline) larger than this is refused with 413. */
export const MAX_RUN_REQUEST_BYTES = 8 * 1024 * 1024;

type Logger = Pick<Console, "warn" | "error">;

export type RunnerServerOptions = {
  /** The secret registered with the host: requests must carry `Authorization: Bearer <secret>`. */
  secret: string;
  runners: RunnerDefinition[];
  /** The Dispatch server runs call back (tools.host); the runner secret authenticates those calls too. */
  hostUrl?: string;
  /** Serve under a path prefix, e.g. "/agents" for {base}/agents/runners. */
  basePath?: string;
  logger?: Logger;
};

export type RunnerHandler = {
  /** A node:http request listener; mount it in your own server if you have one. */
  handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void>;
  /** Cancels every active run (they may still send run.failed) and waits up to graceMs for them to end. */
  shutdown(graceMs?: number): Promise<void>;
  /** Runs streaming right now. */
  readonly activeRuns: number;
};

export type RunnerServer = {
  server: http.Server;
  handler: RunnerHandler;
  /** Starts listening and resolves with the base URL to register with the host. */
  listen(port?: number, host?: string): Promise<string>;
  close(graceMs?: number): Promise<void>;
};

const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();

/** Constant-time check of `Authorization: Bearer <secret>` (both sides hashed, so lengths never leak). */
export function hasBearer(req: http.IncomingMessage, secret: string): boolean {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
  return match !== null && timingSafeEqual(digest(match[1]!), digest(secret));
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

const sendError = (res: http.ServerResponse, status: number, code: string, message: string, headers: http.OutgoingHttpHeaders = {}) =>
  sendJson(res, status, { error: { code, message } }, headers);

export const sendUnauthorized = (res: http.ServerResponse) =>
  sendError(res, 401, "unauthorized", "Send Authorization: Bearer <runner secret>", { "www-authenticate": "Bearer" });

class RequestTooLarge extends Error {}

async function readBody(req: http.IncomingMessage, limit: number): Promise<string> {
  if (Number(req.headers["content-length"] ?? 0) > limit) throw new RequestTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new RequestTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function waitForDrain(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

const abortReason = (message: string) => new DOMException(message, "AbortError");
const reasonText = (signal: AbortSignal) => (signal.reason instanceof Error ? signal.reason.message : "the run was cancelled");

export function createRunnerHandler(opts: RunnerServerOptions): RunnerHandler {
  if (!opts.secret) throw new Error("createRunnerServer needs the runner secret");
  const byId = new Map<string, RunnerDefinition>();
  for (const def of opts.runners) {
    if (byId.has(def.manifest.id)) throw new Error(`Two runners share the id ${def.manifest.id}`);
    byId.set(def.manifest.id, def);
  }
  const base = (opts.basePath ?? "").replace(/\/+$/, "");
  const logger = opts.logger ?? console;
  const active = new Set<{ controller: AbortController; done: Promise<void> }>();

  async function streamRun(def: RunnerDefinition, request: AgentRunRequest, res: http.ServerResponse, controller: AbortController): Promise<void> {
    const { signal } = controller;
    const runId = request.context.run_id;
    res.on("error", () => controller.abort(abortReason("the connection to the host failed")));
    res.on("close", () => {
      if (!res.writableFinished) controller.abort(abortReason("the host closed the connection"));
    });
    res.writeHead(200, { "content-type": "application/x-ndjson; charset=utf-8", "cache-control": "no-store", "x-accel-buffering": "no" });
    res.flushHeaders();

    const writable = () => !res.destroyed && !res.writableEnded;
    const write = async (line: string) => {
      if (writable() && !res.write(line)) await waitForDrain(res);
    };
    let sequence = 0;
    const emit = async (draft: ResultDraft) => {
      const seq = draft.sequence ?? sequence;
      sequence = Math.max(sequence, seq + 1);
      const result = { run_id: draft.run_id ?? runId, type: draft.type, data: draft.data, sequence: seq, timestamp: draft.timestamp ?? Date.now() };
      await write(`${JSON.stringify(result)}\n`);
    };

    let host: HostClient | undefined;
    const tools: RunTools = {
      signal,
      request,
      get host() {
        if (!opts.hostUrl) throw new Error("This runner server has no hostUrl: pass createRunnerServer({ hostUrl }) to call the host API");
        host ??= createHostClient({ hostUrl: opts.hostUrl, secret: opts.secret, context: request.context, signal });
        return host;
      },
    };
    let terminal = false;
    let iterator: AsyncIterator<RunOutput> | undefined;
    // True while the generator is paused at a yield: stopping early must then return() it so its finally blocks run.
    let suspended = false;
    try {
      iterator = def.run(request.context, tools)[Symbol.asyncIterator]();
      // After a cancel the runner may still answer (run.failed "cancelled") while the line can be written.
      while (!(signal.aborted && !writable())) {
        suspended = false;
        const step = await iterator.next();
        if (step.done) break;
        suspended = true;
        if (step.value instanceof RawLine) {
          await write(`${step.value.line}\n`);
          continue;
        }
        await emit(step.value);
        if (isTerminal(step.value)) {
          terminal = true;
          break;
        }
      }
    } catch (err) {
      if (!signal.aborted) {
        const message = err instanceof Error ? err.message : String(err);
        logger.error(`runner ${def.manifest.id} failed in run ${runId}: ${message}`);
        await emit(runFailed("runner.error", message || "the runner failed"));
        terminal = true;
      }
    }
    if (suspended) {
      try {
        await iterator?.return?.();
      } catch (err) {
        logger.warn(`runner ${def.manifest.id} threw while closing run ${runId}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    if (!terminal && writable()) await emit(signal.aborted ? runFailed("cancelled", reasonText(signal)) : runCompleted());
    if (writable()) res.end();
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      const pathname = new URL(req.url ?? "/", "http://runner").pathname.replace(/\/+$/, "");
      const route = pathname.startsWith(base) ? pathname.slice(base.length) : null;
      if (route !== "/runners" && route !== "/run") return sendError(res, 404, "not_found", `No route ${pathname}; this server serves ${base}/runners and ${base}/run`);
      if (!hasBearer(req, opts.secret)) return sendUnauthorized(res);
      if (route === "/runners") {
        if (req.method !== "GET") return sendError(res, 405, "method_not_allowed", "Use GET /runners", { allow: "GET" });
        return sendJson(res, 200, { runners: [...byId.values()].map((d) => d.manifest) });
      }
      if (req.method !== "POST") return sendError(res, 405, "method_not_allowed", "Use POST /run", { allow: "POST" });
      let body: unknown;
      try {
        body = JSON.parse(await readBody(req, MAX_RUN_REQUEST_BYTES));
      } catch (err) {
        if (err instanceof RequestTooLarge) return sendError(res, 413, "payload_too_large", `The run request is over ${MAX_RUN_REQUEST_BYTES} bytes`, { connection: "close" });
        return sendError(res, 400, "invalid_argument", "The body must be a JSON AgentRunRequest");
      }
      const parsed = runRequestSchema.safeParse(body);
      if (!parsed.success) return sendError(res, 400, "invalid_argument", `Invalid AgentRunRequest: ${describeIssues(parsed.error, 5)}`);
      const def = byId.get(parsed.data.runner_id);
      if (!def) return sendError(res, 404, "not_found", `No runner ${parsed.data.runner_id} here; GET /runners lists this server's runners`);

      const controller = new AbortController();
      const entry = { controller, done: streamRun(def, parsed.data, res, controller) };
      active.add(entry);
      await entry.done.finally(() => active.delete(entry));
    } catch (err) {
      logger.error(`runner server request failed: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) sendError(res, 500, "runtime_error", "The runner server failed; see its log");
      else res.destroy();
    }
  }

  return {
    handle,
    async shutdown(graceMs = 2000) {
      for (const run of active) run.controller.abort(abortReason("the runner server is shutting down"));
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
      await Promise.race([Promise.allSettled([...active].map((r) => r.done)), grace]);
      clearTimeout(timer);
    },
    get activeRuns() {
      return active.size;
    },
  };
}

export function createRunnerServer(opts: RunnerServerOptions): RunnerServer {
  const handler = createRunnerHandler(opts);
  const server = http.createServer((req, res) => void handler.handle(req, res));
  return {
    server,
    handler,
    listen(port = 0, host = "127.0.0.1") {
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          const addr = server.address() as AddressInfo;
          resolve(`http://${addr.family === "IPv6" ? `[${addr.address}]` : addr.address}:${addr.port}${(opts.basePath ?? "").replace(/\/+$/, "")}`);
        });
      });
    },
    async close(graceMs) {
      await handler.shutdown(graceMs);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
