import "server-only";
import { encodeSseFrame, SSE_RESPONSE_HEADERS, sseComment } from "../protocols/ag-ui/sse";
import { logger } from "../logger";
import type { EventRecord } from "../runs/types";

const HEARTBEAT_MS = 15_000;
const encoder = new TextEncoder();

type Item = EventRecord | readonly EventRecord[];

/**
 * Streams records as SSE frames (`id:` = sequence number), with heartbeat comments while
 * idle. A source may yield batches: a batch goes out as one chunk (one socket write), which
 * is what keeps a fast token stream cheap. The source is abandoned when the client goes away.
 */
export function sseResponse(
  source: (signal: AbortSignal) => AsyncIterable<Item>,
  opts: { withIds?: boolean; headers?: HeadersInit; format?: (rec: EventRecord) => string } = {},
): Response {
  const abort = new AbortController();
  const format = opts.format ?? (opts.withIds === false ? (rec: EventRecord) => encodeSseFrame(null, rec.json) : (rec: EventRecord) => encodeSseFrame(rec.seq, rec.json));
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
          for await (const item of source(abort.signal)) {
            let text = "";
            if (Array.isArray(item)) for (const rec of item as readonly EventRecord[]) text += format(rec);
            else text = format(item as EventRecord);
            if (text) controller.enqueue(encoder.encode(text));
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
