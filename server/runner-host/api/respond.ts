import "server-only";
import { RETRY_AFTER_SECONDS } from "../../kernel/errors";
import { NDJSON_CONTENT_TYPE } from "../../protocols/runner/host-api";
import type { HostApiFailure } from "./failure";

// The two answer shapes: {ok, data|error} JSON, and NDJSON for streaming actions.

const HEADERS = { "cache-control": "no-store" };

export function okResponse(data: unknown): Response {
  return new Response(JSON.stringify({ ok: true, data }), { status: 200, headers: { ...HEADERS, "content-type": "application/json; charset=utf-8" } });
}

export function failureResponse(failure: HostApiFailure): Response {
  const headers: Record<string, string> = { ...HEADERS, "content-type": "application/json; charset=utf-8" };
  const retryAfterMs = failure.details.retry_after_ms;
  if (failure.code === "rate_limited" && typeof retryAfterMs === "number") headers["retry-after"] = String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
  // An outage (the database) says when to retry, as every other edge does.
  if (failure.status === 503) headers["retry-after"] = String(RETRY_AFTER_SECONDS);
  if (failure.status === 401) headers["www-authenticate"] = 'Bearer realm="runner-api"';
  // The rest of an oversize body was never read, so this connection cannot carry another request.
  if (failure.code === "payload_too_large") headers.connection = "close";
  return new Response(JSON.stringify({ ok: false, error: failure.toError() }), { status: failure.status, headers });
}

const encoder = new TextEncoder();
const line = (value: unknown) => encoder.encode(`${JSON.stringify(value)}\n`);

/**
 * Streams `first` and then the rest of `lines` as NDJSON. A failure mid-stream becomes a
 * final {type: "error"} line; `onEnd` hears how the stream ended (ok, an error code, or
 * cancelled when the runner hung up).
 */
export function ndjsonResponse(opts: {
  first: unknown;
  lines: AsyncIterator<unknown>;
  toFailure: (err: unknown) => HostApiFailure;
  /** The runner stopped reading. */
  onCancel: () => void;
  onEnd: (result: string) => Promise<void>;
}): Response {
  let ended = false;
  const end = async (result: string) => {
    if (ended) return;
    ended = true;
    await opts.onEnd(result);
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(line(opts.first));
    },
    async pull(controller) {
      try {
        const next = await opts.lines.next();
        if (next.done) {
          await end("ok");
          controller.close();
          return;
        }
        controller.enqueue(line(next.value));
      } catch (err) {
        const failure = opts.toFailure(err);
        controller.enqueue(line({ type: "error", error: failure.toError() }));
        await end(failure.code);
        controller.close();
      }
    },
    async cancel() {
      opts.onCancel();
      await opts.lines.return?.();
      await end("cancelled");
    },
  });
  return new Response(body, { status: 200, headers: { ...HEADERS, "content-type": NDJSON_CONTENT_TYPE } });
}
