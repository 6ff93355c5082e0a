import "server-only";
import { randomUUID } from "node:crypto";
import { AppError, errorBody, toAppError } from "../errors";
import { logger } from "../logger";

type RouteContext = { params: Promise<Record<string, string | string[]>> };
type Handler = (req: Request, ctx: RouteContext) => Promise<Response>;

export function jsonResponse(body: unknown, status = 200, headers?: HeadersInit): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}

export function errorResponse(err: AppError, requestId?: string): Response {
  return jsonResponse(errorBody(err), err.status, requestId ? { "x-request-id": requestId } : undefined);
}

/**
 * Wraps a route handler: maps anything thrown to `{error:{code,message}}` with its
 * status, and writes one log line per request with status and latency.
 */
export function apiRoute(handler: Handler): Handler {
  return async (req, ctx) => {
    const started = performance.now();
    const requestId = req.headers.get("x-request-id") ?? randomUUID();
    const path = new URL(req.url).pathname;
    let response: Response;
    try {
      response = await handler(req, ctx);
    } catch (err) {
      response = errorResponse(toAppError(err, { path, requestId }), requestId);
    }
    logger.info(
      { method: req.method, path, status: response.status, ms: Math.round((performance.now() - started) * 10) / 10, requestId },
      "request",
    );
    return response;
  };
}

/** Reads a JSON body, answering 400 with a clear message when it is not JSON. */
export async function readJson(req: Request): Promise<unknown> {
  const text = await req.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("BAD_REQUEST", "Request body is not valid JSON");
  }
}
