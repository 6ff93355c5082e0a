import "server-only";
import { encodeSseFrame, SSE_RESPONSE_HEADERS, sseComment } from "../protocols/ag-ui/sse";
import { logger } from "../logger";
import type { EventRecord } from "../runs/types";

const HEARTBEAT_MS = 15_000;
const encoder = new TextEncoder();

type Item = EventRecord | readonly EventRecord[];

/** Where an event stream's frames go: a Response body for Next, the node response itself on the node routes. */
export type SseSink = {
  /** Writes frames; false when the client is behind (wait for `drained` before writing more). */
  write(text: string): boolean;
  /** Writes the last frames, if any, and ends the answer, in one write. */
  end(text: string): void;
  /** Resolves true once the client takes more, false when it has gone. */
  drained(): Promise<boolean>;
};

/** Streams the frames into a sink until the source ends or `signal` aborts. */
export type SsePump = (sink: SseSink, signal: AbortSignal) => Promise<void>;

// The node routes (node-routes.ts) pump a stream straight into the socket: no web stream between
// them, the headers go with the first frames, and the last frames with the end of the answer.
const pumps = new WeakMap<Response, SsePump>();

/** The pump behind a response from sseResponse, while its body has not been read. */
export function ssePumpOf(response: Response): SsePump | undefined {
  return response.bodyUsed ? undefined : pumps.get(response);
}

/**
 * Streams records as SSE frames (`id:` = sequence number), with heartbeat comments while
 * idle. A source may yield batches: a batch goes out as one chunk (one socket write), which
 * is what keeps a fast token stream cheap. A record whose type is in `final` ends the stream
 * with its frame. The source is abandoned when the client goes away.
 */
export function sseResponse(
  source: (signal: AbortSignal) => AsyncIterable<Item>,
  opts: { withIds?: boolean; headers?: HeadersInit; format?: (rec: EventRecord) => string; final?: ReadonlySet<string> } = {},
): Response {
  const format = opts.format ?? (opts.withIds === false ? (rec: EventRecord) => encodeSseFrame(null, rec.json) : (rec: EventRecord) => encodeSseFrame(rec.seq, rec.json));
  const final = opts.final;
  let started = false;
  const pump: SsePump = async (sink, signal) => {
    if (started) throw new Error("An event stream can be sent once");
    started = true;
    const heartbeat = setInterval(() => sink.write(sseComment("ping")), HEARTBEAT_MS);
    let last = "";
    try {
      for await (const item of source(signal)) {
        const records = Array.isArray(item) ? (item as readonly EventRecord[]) : [item as EventRecord];
        let text = "";
        for (const rec of records) text += format(rec);
        if (final && records.length > 0 && final.has(records[records.length - 1]!.type)) {
          last = text;
          break;
        }
        if (text && !sink.write(text) && !(await sink.drained())) break;
      }
    } catch (err) {
      if (!signal.aborted) logger.error({ err }, "event stream failed");
    } finally {
      clearInterval(heartbeat);
      sink.end(last);
    }
  };

  const abort = new AbortController();
  let open = true;
  // Started by the first read (highWaterMark 0), so a stream the node routes pump is never read twice.
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (started) return;
        void pump(
          {
            write(text) {
              if (open) controller.enqueue(encoder.encode(text));
              return true;
            },
            end(text) {
              if (!open) return;
              open = false;
              if (text) controller.enqueue(encoder.encode(text));
              controller.close();
            },
            drained: () => Promise.resolve(open),
          },
          abort.signal,
        );
      },
      cancel() {
        open = false;
        abort.abort();
      },
    },
    { highWaterMark: 0 },
  );
  const response = new Response(body, { status: 200, headers: { ...SSE_RESPONSE_HEADERS, ...opts.headers } });
  pumps.set(response, pump);
  return response;
}
