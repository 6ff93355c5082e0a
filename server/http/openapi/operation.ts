import type { z } from "zod";

// How an endpoint is described in the OpenAPI document (document.ts). Request schemas are not
// here: they are the endpoint's own `body` and `query` schemas, the ones it validates with.

export type ResponseDoc =
  | { description: string; json: z.ZodType }
  /** A stream of Server-Sent Events: what its `data:` lines carry. */
  | { description: string; sse: string }
  /** Any other body: its media type. */
  | { description: string; contentType: string }
  | { description: string };

export type OperationDoc = {
  /** The operation's name in generated clients. */
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** Path parameters' descriptions, by name. */
  params?: Record<string, string>;
  /** A body that is not one `jsonBody` schema: a protocol's, an upload. */
  requestBody?: { contentType: string; description: string; schema?: z.ZodType };
  responses: Record<number, ResponseDoc>;
  /** The error statuses it may answer besides 401 and 5xx, each with the `{error}` body. */
  errors?: number[];
  /** Who may call it; API key or session unless said otherwise. */
  security?: "caller" | "none" | "session";
};
