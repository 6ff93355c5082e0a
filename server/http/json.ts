import "server-only";
import { errorBody, retryAfter, type AppError } from "../kernel/errors";
import { encodeJsonText, type JsonText } from "../lib/json-text";

// Serialized in pieces well below V8's large-object size (~128 KB): a large string is born in
// the old generation and only a full collection frees it, so a ~200 KB answer as one string per
// request (a /history page was one, before the database rendered its messages) kept full
// collections, and their pauses, coming. Long arrays near the top are stringified some
// elements at a time; the text is copied out to a Buffer whenever it passes PIECE_CHARS, so a
// small answer is still one string and one Buffer.
const ELEMENTS_PER_PIECE = 48;
const PIECE_CHARS = 32_768;

/** `JSON.stringify(value)` as UTF-8 bytes, without building a large answer as one string. */
export function jsonBytes(value: unknown): Buffer {
  const buffers: Buffer[] = [];
  let text = "";
  const put = (piece: string) => {
    text += piece;
    if (text.length >= PIECE_CHARS) {
      buffers.push(Buffer.from(text));
      text = "";
    }
  };
  const write = (v: unknown, depth: number) => {
    // Below the top two levels, and for values with toJSON (Date), JSON.stringify gives the text.
    if (depth >= 2 || typeof v !== "object" || v === null || typeof (v as { toJSON?: unknown }).toJSON === "function") {
      put(JSON.stringify(v) ?? "null");
      return;
    }
    if (Array.isArray(v)) {
      put("[");
      for (let i = 0; i < v.length; i += ELEMENTS_PER_PIECE) {
        // The slice's own brackets are dropped; JSON.stringify writes holes and undefined as null.
        const piece = JSON.stringify(v.slice(i, i + ELEMENTS_PER_PIECE));
        put(i > 0 ? `,${piece.slice(1, -1)}` : piece.slice(1, -1));
      }
      put("]");
      return;
    }
    let first = true;
    for (const key of Object.keys(v)) {
      const item = (v as Record<string, unknown>)[key];
      if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
      put(`${first ? "{" : ","}${JSON.stringify(key)}:`);
      first = false;
      write(item, depth + 1);
    }
    put(first ? "{}" : "}");
  };
  write(value, 0);
  if (buffers.length === 0) return Buffer.from(text);
  if (text) buffers.push(Buffer.from(text));
  return buffers.length === 1 ? buffers[0]! : Buffer.concat(buffers);
}

// The body of each JSON answer, for the node routes (node-routes.ts): they write it as it is,
// rather than reading it back out of the Response's body stream.
const jsonBodies = new WeakMap<Response, JsonBody>();

/** A JSON answer's UTF-8 bytes, or the pieces of its text (encoded where it is written). */
export type JsonBody = Buffer | JsonText;

export function jsonResponse(body: unknown, status = 200, headers?: HeadersInit): Response {
  return jsonBodyResponse(jsonBytes(body), status, headers);
}

/** A JSON answer whose text is already made. */
export function jsonBodyResponse(json: JsonBody, status = 200, headers?: HeadersInit): Response {
  // The Response's body is a stream that makes the bytes when first read: given a view of bytes,
  // the Response would copy them (undici does), memory outside V8's heap on every answer, which
  // is what sets V8's full collections going. The node routes never read it: they write `json`.
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const bytes = Buffer.isBuffer(json) ? json : encodeJsonText(json);
        controller.enqueue(new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength));
        controller.close();
      },
    },
    { highWaterMark: 0 },
  );
  const response = new Response(body, {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", "content-length": String(json.byteLength), ...headers },
  });
  jsonBodies.set(response, json);
  return response;
}

/** The body of a response from jsonResponse or jsonBodyResponse, while its body has not been read. */
export function jsonBodyOf(response: Response): JsonBody | undefined {
  return response.bodyUsed ? undefined : jsonBodies.get(response);
}

export function errorResponse(err: AppError, requestId?: string): Response {
  return jsonResponse(errorBody(err), err.status, { ...retryAfter(err), ...(requestId ? { "x-request-id": requestId } : {}) });
}
