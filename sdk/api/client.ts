import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema";

// A typed client for Dispatch's REST API: openapi-fetch over the types openapi-typescript made
// from the server's OpenAPI document (schema.d.ts, `npm run sdk:generate`). Every call is
// `client.GET(path, {params, body})` with the path, parameters, body and answer typed.

export type DispatchClient = Client<paths>;
export type Thread = components["schemas"]["Thread"];
export type MessageHit = components["schemas"]["MessageHit"];
export type Run = components["schemas"]["Run"];

/** A client for the server at `baseUrl`, authenticated with an API key (or pass `headers: {cookie}` for a session). */
export function createDispatchClient(opts: { baseUrl: string; apiKey?: string; headers?: Record<string, string> }): DispatchClient {
  return createClient<paths>({
    baseUrl: opts.baseUrl,
    headers: { ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}), ...opts.headers },
  });
}

/** The answer's data, or an Error carrying the server's `{error: {code, message}}`. */
export function dataOf<T>(result: { data?: T; error?: { error: { code: string; message: string } } | unknown; response: Response }): T {
  if (result.data !== undefined) return result.data;
  const body = result.error as { error?: { code?: string; message?: string } } | undefined;
  throw Object.assign(new Error(`${result.response.status} ${body?.error?.code ?? ""}: ${body?.error?.message ?? "no body"}`), { status: result.response.status, code: body?.error?.code });
}
