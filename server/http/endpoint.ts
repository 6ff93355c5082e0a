import "server-only";
import { randomUUID } from "node:crypto";
import { AppError, RETRY_AFTER_SECONDS, toAppError } from "../kernel/errors";
import { stringProblem } from "../input-text";
import { logger } from "../logger";
import type { KeepAlive } from "../runs/service/runs";
import { asCaller, type Authenticated, type AuthKind } from "./authenticate";
import type { BodyReader } from "./bodies";
import type { OperationDoc } from "./openapi/operation";
import { readQuery, type QuerySchema } from "./query";
import { keepAlive } from "./keep-alive";
import { requestOrigin } from "./origin";
import { errorResponse } from "./json";
import { closeAfterRefusal } from "./refusal";
import { contextFromHeaders, traceHeaders, tracer } from "../telemetry/tracing";
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";

// Every route under app/api (and app/storage) is one endpoint defined here: what it serves
// (method, path), who may call it (auth), how its body is read, and its handler, which reads like
// a sentence: parse, authenticate, call a service, encode. The wrapper maps anything thrown to
// `{error:{code,message}}` with its status (or the endpoint's own protocol answer) and writes one
// log line per request. The node fast path (endpoints/fast-path.ts) serves some of the same endpoints.

export type RouteParams = Readonly<Record<string, string>>;
type RouteContext = { params: Promise<Record<string, string | string[]>> };
export type RouteHandler = (req: Request, ctx: RouteContext) => Promise<Response>;

/** What a handler is given: the request, its path parameters, its caller, its read body, and what the edge offers services. */
export type EdgeCall<K extends AuthKind, B, N, Q = undefined> = Authenticated[K] & {
  req: Request;
  params: RouteParams;
  body: B;
  /** The query string as `query` parsed it. */
  query: Q;
  /** What `negotiate` chose from the request's headers before anything else. */
  negotiated: N;
  /** The origin the caller reached the app at, for absolute URLs handed back to it (origin.ts). */
  origin: () => string;
  /** Keeps background work the request started alive after its answer. */
  keepAlive: KeepAlive;
};

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export type EndpointDefinition<M extends Method, K extends AuthKind, B, N, Q> = {
  method: M;
  /** Next's segment syntax, as the route's folder: `/api/v1/agent/runs/[runId]/events`. */
  path: string;
  auth: K;
  /** Runs before the caller or the body is read: an Accept header nothing can suit is refused (406) first. */
  negotiate?: (req: Request) => N;
  body?: BodyReader<B>;
  /** The query string's schema (a repeated parameter is a list where the schema says so): 400 names the first wrong one. */
  query?: QuerySchema<Q>;
  /** How the OpenAPI document describes it (server/http/openapi); its request schemas are `body`'s and `query`'s own. */
  doc?: OperationDoc;
  handle: (call: EdgeCall<K, NoInfer<B>, NoInfer<N>, NoInfer<Q>>) => Promise<Response>;
  /**
   * The body is an upload that may be left unread part-way: a refusal before it has been read
   * through (by `body`, else by the handler's service) closes the connection, and on 413 reads on
   * briefly, so the client sees the answer rather than a reset.
   */
  upload?: true;
  /** A protocol with its own error shape (the host API) answers failures itself. */
  refuse?: (err: unknown, req: Request, params: RouteParams) => Promise<Response>;
};

export type Endpoint<M extends Method = Method> = {
  method: M;
  path: string;
  handler: RouteHandler;
  /** What the OpenAPI document is made from: the definition's own schemas and doc. */
  schemas?: { body?: BodyReader<unknown>["schema"]; query?: QuerySchema<unknown>; doc?: OperationDoc };
};

// A catch-all segment ([...path]) arrives as its parts; handlers take it as the path it was.
async function paramsOf(ctx: RouteContext | undefined): Promise<RouteParams> {
  const raw = (await ctx?.params) ?? {};
  return Object.fromEntries(Object.entries(raw).map(([name, value]) => [name, Array.isArray(value) ? value.join("/") : value]));
}

/** 400 for a path parameter or query parameter no handler could store or look up (a NUL, a lone surrogate). */
function refuseHostileUrl(url: URL, params: RouteParams): void {
  for (const [name, value] of Object.entries(params)) {
    const problem = stringProblem(value);
    if (problem) throw new AppError("BAD_REQUEST", `The path segment ${name} ${problem}`, { field: name });
  }
  for (const [name, value] of url.searchParams) {
    const problem = stringProblem(name) ?? stringProblem(value);
    if (problem) throw new AppError("BAD_REQUEST", `The query parameter ${name} ${problem}`, { field: name });
  }
}

export function logRequest(req: Request, path: string, status: number, started: number, requestId?: string, traceId?: string): void {
  logger.info({ method: req.method, path, status, ms: Math.round((performance.now() - started) * 10) / 10, requestId, ...(traceId ? { traceId } : {}) }, "request");
}

export function endpoint<M extends Method, K extends AuthKind, B = undefined, N = undefined, Q = undefined>(def: EndpointDefinition<M, K, B, N, Q>): Endpoint<M> {
  // `read` notes when the body has been read through: an upload's refusal closes the connection before that.
  const serve = async (req: Request, params: RouteParams, read: { done: boolean }): Promise<Response> => {
    const url = new URL(req.url);
    refuseHostileUrl(url, params);
    const negotiated = def.negotiate?.(req) as N;
    return asCaller(def.auth, req, async (who) => {
      const query = (def.query ? readQuery(url, def.query) : undefined) as Q;
      const body = (def.body ? await def.body.read(req) : undefined) as B;
      read.done = def.body !== undefined;
      return def.handle({ ...who, req, params, body, query, negotiated, origin: () => requestOrigin(req), keepAlive });
    });
  };
  const handler: RouteHandler = async (req, ctx) => {
    const started = performance.now();
    const requestId = req.headers.get("x-request-id") ?? randomUUID();
    const path = new URL(req.url).pathname;
    const params = await paramsOf(ctx);
    const read = { done: false };
    // One server span per request, continuing the client's trace when it sent `traceparent`.
    const parent = contextFromHeaders(req.headers);
    const span = tracer().startSpan(`${def.method} ${def.path}`, { kind: SpanKind.SERVER, attributes: { "http.request.method": def.method, "http.route": def.path } }, parent);
    let response: Response;
    try {
      response = await context.with(trace.setSpan(parent, span), () => serve(req, params, read));
    } catch (err) {
      if (def.refuse) response = await def.refuse(err, req, params);
      else {
        const error = toAppError(err, { path, requestId });
        response = errorResponse(error, requestId);
        if (def.upload && !read.done) await closeAfterRefusal(response, error, req.body);
      }
    }
    span.setAttribute("http.response.status_code", response.status);
    if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
    logRequest(req, path, response.status, started, requestId, span.spanContext().traceId);
    return withTraceResponse(response, span);
  };
  return { method: def.method, path: def.path, handler, schemas: { body: def.body?.schema, query: def.query as QuerySchema<unknown> | undefined, doc: def.doc } };
}

/**
 * Tells the client which trace its request joined (or started): W3C Trace Context Level 2's
 * `traceresponse`, the request span's own `traceparent`. A run started by this request carries
 * the same trace id to its runner and model calls.
 */
function withTraceResponse(response: Response, span: Span): Response {
  const traceResponse = traceHeaders(trace.setSpan(ROOT_CONTEXT, span)).traceparent;
  if (!traceResponse) return response;
  try {
    response.headers.set("traceresponse", traceResponse);
    return response;
  } catch {
    // A response whose headers are immutable (one fetched from elsewhere) is copied once.
    const headers = new Headers(response.headers);
    headers.set("traceresponse", traceResponse);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}

/** An adapter's 503 (tRPC's mapped outage) says when to retry, as the endpoints' do. */
function withRetryAfter(response: Response): Response {
  if (response.status !== 503 || response.headers.has("retry-after")) return response;
  const headers = new Headers(response.headers);
  headers.set("retry-after", String(RETRY_AFTER_SECONDS));
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** For the adapters that answer for themselves (Auth.js, tRPC): the one log line, and anything they throw mapped as everywhere else. */
export function adapterRoute(handle: (req: Request) => Promise<Response>): (req: Request) => Promise<Response> {
  return async (req) => {
    const started = performance.now();
    const requestId = req.headers.get("x-request-id") ?? randomUUID();
    const path = new URL(req.url).pathname;
    let response: Response;
    try {
      response = withRetryAfter(await handle(req));
    } catch (err) {
      response = errorResponse(toAppError(err, { path, requestId }), requestId);
    }
    logRequest(req, path, response.status, started, requestId);
    return response;
  };
}
