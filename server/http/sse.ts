import "server-only";
import { encodeSseFrame, SSE_RESPONSE_HEADERS, sseComment } from "../protocols/ag-ui/sse";
import { logger } from "../logger";
import type { EventRecord } from "../runs/types";

const HEARTBEAT_MS = 15_000;
const encoder = new TextEncoder();

/**
 * Streams records as SSE frames (`id:` = sequence number), with heartbeat comments while
 * idle. The source is abandoned when the client goes away.
 */
export function sseResponse(
  source: (signal: AbortSignal) => AsyncIterable<EventRecord>,
  opts: { withIds?: boolean; headers?: HeadersInit; format?: (rec: EventRecord) => string } = {},
): Response {
  const abort = new AbortController();
  let heartbeat: NodeJS.Timeout | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      heartbeat = setInterval(() => {
        try {
          controller.enqueue(encoder.encode(sseComment("ping")));
        } catch {
          clearInterval(heartbeat);
        }
      }, HEARTBEAT_MS);
      void (async () => {
        try {
          for await (const rec of source(abort.signal)) {
            controller.enqueue(encoder.encode(opts.format ? opts.format(rec) : encodeSseFrame(opts.withIds === false ? null : rec.seq, rec.json)));
          }
        } catch (err) {
          if (!abort.signal.aborted) logger.error({ err }, "event stream failed");
        } finally {
          clearInterval(heartbeat);
          try {
            controller.close();
          } catch {
            // already closed by the client
          }
        }
      })();
    },
    cancel() {
      clearInterval(heartbeat);
      abort.abort();
    },
  });
  return new Response(body, { status: 200, headers: { ...SSE_RESPONSE_HEADERS, ...opts.headers } });
}
