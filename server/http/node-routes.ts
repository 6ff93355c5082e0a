import "server-only";
import type { IncomingMessage, ServerResponse } from "node:http";
import { promisify } from "node:util";
import { constants as zlibConstants, gzip as gzipCallback } from "node:zlib";
import { AppError, errorBody, retryAfter, toAppError } from "../kernel/errors";
import { isEventStreamContentType } from "../protocols/ag-ui/encoding";
import { MAX_PAYLOAD_BYTES } from "../protocols/ag-ui/run-input-rules";
import { encodeJsonText } from "../lib/json-text";
import { jsonBodyOf } from "./json";
import { releasePageBuffer, takePageBuffer } from "./page-buffers";
import { ssePumpOf } from "./sse";

// The protocol calls API keys make most (the run streams they start and follow, /history; the
// list is in endpoints/fast-path.ts), served by the same endpoint handlers Next.js calls, but
// straight from node:http (scripts/start-server.mjs): Next's per-request work
// (routing, request scopes, its web-stream piping) is a large share of a run's server CPU. Everything
// else, and anything these routes' handlers need Next for, stays with Next:
// - requests without `Authorization`: a browser session is read through Auth.js, which needs
//   Next's request scope;
// - bodies that are chunked or declare more than the protocols accept, so the handlers'
//   own size checks answer them exactly as before.
// Whole answers are gzipped for clients that accept it, as Next does (a /history page is
// a large JSON answer).

const gzip = promisify(gzipCallback);
// Below this, compressing saves too little to be worth a round through the thread pool.
const GZIP_MIN_BYTES = 1_024;

/** True when an Accept-Encoding header accepts gzip: named (or `*`, when gzip is not named) with a q above 0. */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  const codings = new Map(
    header.split(",").map((part) => {
      const [coding = "", ...params] = part.split(";").map((p) => p.trim().toLowerCase());
      const q = params.find((p) => p.startsWith("q="));
      return [coding, q === undefined ? 1 : Number(q.slice(2))] as const;
    }),
  );
  const q = codings.get("gzip") ?? codings.get("*");
  return q !== undefined && q > 0;
}

type RouteHandler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** `maxBodyBytes`: larger declared bodies go to Next, whose handler answers them (default: the seed's run limit). */
export type NodeRoute = { method: "GET" | "POST"; path: string; handler: RouteHandler; maxBodyBytes?: number };

type CompiledRoute = NodeRoute & { pattern: RegExp; names: string[] };

/** Serves the request when one of the routes takes it; false (nothing read) when Next should. */
export type NodeRouter = (req: IncomingMessage, res: ServerResponse) => boolean;

const ROUTER = Symbol.for("dispatch.nodeRouter");

/** True in the server scripts/start-server.mjs runs, which leaves an empty slot for the router. */
export function nodeRouterWanted(): boolean {
  return ROUTER in globalThis;
}

/** Where that server finds the router. */
export function publishNodeRouter(router: NodeRouter): void {
  (globalThis as { [ROUTER]?: NodeRouter })[ROUTER] = router;
}

function compile(route: NodeRoute): CompiledRoute {
  const names: string[] = [];
  const source = route.path.replace(/[.*+?^$()|\\]/g, "\\$&").replace(/\[(\w+)\]/g, (_m, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  return { ...route, pattern: new RegExp(`^${source}$`), names };
}

/** `path` uses Next's segment syntax: `/api/v1/agent/runs/[runId]/events`. */
export function createNodeRouter(routes: NodeRoute[]): NodeRouter {
  const compiled = routes.map(compile);
  return (req, res) => {
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    const pathname = query < 0 ? url : url.slice(0, query);
    if (!decodablePath(pathname)) {
      refuseMalformedPath(req, res);
      return true;
    }
    if (req.headers.authorization === undefined) return false;
    for (const route of compiled) {
      if (route.method !== req.method) continue;
      const match = route.pattern.exec(pathname);
      if (!match) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => (params[name] = decodeURIComponent(match[i + 1]!)));
      if (req.method === "POST") {
        const declared = req.headers["content-length"];
        if (declared === undefined || !(Number(declared) <= (route.maxBodyBytes ?? MAX_PAYLOAD_BYTES))) return false;
      }
      void serve(route.handler, params, req, res);
      return true;
    }
    return false;
  };
}

/** False for a path with a malformed percent-escape (`%ZZ`, or bytes that are not UTF-8), which Next answers with a plain-text 500. */
function decodablePath(pathname: string): boolean {
  if (!pathname.includes("%")) return true;
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}

// Answered here, for every request and before anything is read: no route could take this path.
function refuseMalformedPath(req: IncomingMessage, res: ServerResponse): void {
  const body = Buffer.from(JSON.stringify(errorBody(new AppError("BAD_REQUEST", "The request path has a malformed percent-escape (each % must start a UTF-8 escape such as %2F)"))));
  res.statusCode = 400;
  res.setHeader("content-type", "application/json; charset=utf-8");
  res.setHeader("content-length", body.length);
  // An unread body must not be taken for the next request on this connection.
  if (req.method !== "GET" && req.method !== "HEAD") res.setHeader("connection", "close");
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

function toRequest(req: IncomingMessage, body: Buffer | null, signal: AbortSignal): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  // As Next builds it for a plain node server; origins handed to callers come from origin.ts.
  const proto = "http";
  const init: RequestInit = { method: req.method, headers, signal };
  if (body) init.body = new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength);
  return new Request(`${proto}://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, init);
}

/** Waits until the socket takes more, or the client is gone (false). */
function drained(res: ServerResponse): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      res.off("drain", onDrain);
      res.off("close", onClose);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    res.on("drain", onDrain);
    res.on("close", onClose);
  });
}

async function serve(handler: RouteHandler, params: Record<string, string>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // Aborted when the client goes away before the answer is complete, as Next does for req.signal.
  const gone = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) gone.abort();
  });
  try {
    const body = req.method === "POST" ? await readBody(req) : null;
    const response = await handler(toRequest(req, body, gone.signal), { params: Promise.resolve(params) });
    res.statusCode = response.status;
    response.headers.forEach((value, name) => {
      if (name !== "set-cookie") res.setHeader(name, value);
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) res.setHeader("set-cookie", cookies);
    const pump = ssePumpOf(response);
    if (pump) return await writePumped(pump, res, gone.signal);
    if (response.body && isEventStreamContentType(response.headers.get("content-type"))) return await writeStream(response.body, res, gone.signal);
    await writeWhole(response, req, res);
  } catch (err) {
    // The handlers answer their own failures (endpoint.ts); this is the adapter's, mapped and logged the same way.
    if (gone.signal.aborted) return;
    const error = toAppError(err, { method: req.method, path: req.url });
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.statusCode = error.status;
    for (const [name, value] of Object.entries(retryAfter(error) ?? {})) res.setHeader(name, value);
    res.setHeader("content-type", "application/json; charset=utf-8");
    res.end(JSON.stringify(errorBody(error)));
  }
}

/** A whole answer (JSON): one write, with its length, gzipped when large. Text pieces are encoded into a pooled buffer. */
async function writeWhole(response: Response, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const json = jsonBodyOf(response);
  let pooled: Buffer | null = null;
  let body: Buffer;
  if (json === undefined) body = Buffer.from(await response.arrayBuffer());
  else if (Buffer.isBuffer(json)) body = json;
  else {
    pooled = takePageBuffer(json.byteLength);
    body = encodeJsonText(json, pooled ?? undefined);
  }
  if (body.length >= GZIP_MIN_BYTES && !response.headers.has("content-encoding")) {
    res.setHeader("vary", "Accept-Encoding");
    if (acceptsGzip(req.headers["accept-encoding"])) {
      // On the thread pool, at the fastest level: JSON compresses well even there.
      body = await gzip(body, { level: zlibConstants.Z_BEST_SPEED });
      res.setHeader("content-encoding", "gzip");
      if (pooled) releasePageBuffer(pooled);
      pooled = null;
    }
  }
  res.setHeader("content-length", body.length);
  if (pooled) {
    const buffer = pooled;
    res.once("finish", () => releasePageBuffer(buffer));
  }
  res.end(body);
}

/** An SSE answer whose frames the handler writes straight into the socket. */
async function writePumped(pump: NonNullable<ReturnType<typeof ssePumpOf>>, res: ServerResponse, gone: AbortSignal): Promise<void> {
  // A follower may wait a while for its first event, so the headers go at the end of this turn
  // if no frame has taken them along by then.
  const flush = setImmediate(() => {
    if (!res.headersSent && !res.destroyed) res.flushHeaders();
  });
  // Frames are text (SSE) or bytes (protobuf); the socket takes either as it is.
  await pump({ write: (chunk) => res.write(chunk), end: (chunk) => void res.end(chunk ?? undefined), drained: () => drained(res) }, gone);
  clearImmediate(flush);
}

/** An event stream from the handler's web stream, ended (its cancel hook stops the source) when the client goes away. */
async function writeStream(stream: ReadableStream<Uint8Array>, res: ServerResponse, gone: AbortSignal): Promise<void> {
  const reader = stream.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  if (gone.aborted) return cancel();
  gone.addEventListener("abort", cancel, { once: true });
  // A follower may wait a while for its first event: the headers go at once.
  res.flushHeaders();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!res.write(value) && !(await drained(res))) return;
  }
  res.end();
}
