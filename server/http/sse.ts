import "server-only";
import { AppError } from "../kernel/errors";
import {
  JSON_MEDIA_TYPE,
  negotiateEventEncoding,
  notAcceptableMessage,
  preferredMediaType,
  PROTO_MEDIA_TYPE,
  SSE_ENCODING,
  SSE_MEDIA_TYPE,
  wantsEventStream,
  type EventEncoding,
  type EventFrame,
} from "../protocols/ag-ui/encoding";
import { encodeSseFrame, EVENT_STREAM_HEADERS } from "../protocols/ag-ui/sse";
import { logger } from "../logger";
import type { EventRecord } from "../kernel/runs";

const HEARTBEAT_MS = 15_000;
const encoder = new TextEncoder();

type Item = EventRecord | readonly EventRecord[];

/** Where an event stream's frames go: a Response body for Next, the node response itself on the node routes. */
export type SseSink = {
  /** Writes frames; false when the client is behind (wait for `drained` before writing more). */
  write(chunk: EventFrame): boolean;
  /** Writes the last frames, if any, and ends the answer, in one write. */
  end(chunk: EventFrame | null): void;
  /** Resolves true once the client takes more, false when it has gone. */
  drained(): Promise<boolean>;
};

/** Streams the frames into a sink until the source ends or `signal` aborts. */
export type SsePump = (sink: SseSink, signal: AbortSignal) => Promise<void>;

/** 406 for a request whose Accept header accepts none of `served`. */
export function notAcceptable(served: readonly string[], message = notAcceptableMessage(served)): AppError {
  return new AppError("NOT_ACCEPTABLE", message, { served });
}

/**
 * The encoding of a run's event stream for a request's Accept header and its client's AG-UI
 * protocolVersion (see negotiateEventEncoding); throws 406 when no encoding suits.
 */
export function eventEncodingFor(accept: string | null, protocolVersion: string | null | undefined): EventEncoding {
  const negotiated = negotiateEventEncoding({ accept, protocolVersion });
  if (!negotiated.ok) throw notAcceptable(negotiated.served, negotiated.message);
  return negotiated.encoding;
}

/** A run door's Accept header: a stream (its encoding chosen once the client's protocolVersion is known) or JSON; 406 when neither suits. */
export function streamOrJson(req: Request): { accept: string | null; stream: boolean } {
  const accept = req.headers.get("accept");
  const stream = wantsEventStream(accept);
  if (!stream && !preferredMediaType(accept, [JSON_MEDIA_TYPE])) throw notAcceptable([JSON_MEDIA_TYPE, SSE_MEDIA_TYPE, PROTO_MEDIA_TYPE]);
  return { accept, stream };
}

// A batch goes out as one chunk: its frames joined, text or bytes as the encoding makes them.
function joinFrames(frames: EventFrame[]): EventFrame {
  if (frames.length === 1) return frames[0]!;
  if (typeof frames[0] === "string") return (frames as string[]).join("");
  return Buffer.concat(frames as Uint8Array[]);
}

const bytesOf = (chunk: EventFrame): Uint8Array => (typeof chunk === "string" ? encoder.encode(chunk) : chunk);

// The node routes (node-routes.ts) pump a stream straight into the socket: no web stream between
// them, the headers go with the first frames, and the last frames with the end of the answer.
const pumps = new WeakMap<Response, SsePump>();

/** The pump behind a response from sseResponse, while its body has not been read. */
export function ssePumpOf(response: Response): SsePump | undefined {
  return response.bodyUsed ? undefined : pumps.get(response);
}

/**
 * Streams records in an encoding (AG-UI 1.0 SSE unless given; `id:` = sequence number), with
 * the encoding's heartbeat while idle. A source may yield batches: a batch goes out as one chunk
 * (one socket write), which is what keeps a fast token stream cheap. A record whose type is in
 * `final` ends the stream with its frame. The source is abandoned when the client goes away.
 * `withIds: false` and `format` are for SSE streams that are not a run's AG-UI events.
 */
export function sseResponse(
  source: (signal: AbortSignal) => AsyncIterable<Item>,
  opts: { encoding?: EventEncoding; withIds?: boolean; headers?: HeadersInit; format?: (rec: EventRecord) => string; final?: ReadonlySet<string> } = {},
): Response {
  const encoding = opts.encoding ?? SSE_ENCODING;
  const frame = opts.format ?? (opts.withIds === false ? (rec: EventRecord) => encodeSseFrame(null, rec.json) : encoding.frame);
  const heartbeatFrame = encoding.heartbeat;
  const final = opts.final;
  let started = false;
  const pump: SsePump = async (sink, signal) => {
    if (started) throw new Error("An event stream can be sent once");
    started = true;
    const heartbeat = heartbeatFrame === null ? null : setInterval(() => sink.write(heartbeatFrame), HEARTBEAT_MS);
    let last: EventFrame | null = null;
    try {
      for await (const item of source(signal)) {
        const records = Array.isArray(item) ? (item as readonly EventRecord[]) : [item as EventRecord];
        if (records.length === 0) continue;
        const chunk = joinFrames(records.map(frame));
        if (final && final.has(records[records.length - 1]!.type)) {
          last = chunk;
          break;
        }
        if (!sink.write(chunk) && !(await sink.drained())) break;
      }
    } catch (err) {
      if (!signal.aborted) logger.error({ err }, "event stream failed");
    } finally {
      if (heartbeat) clearInterval(heartbeat);
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
            write(chunk) {
              if (open) controller.enqueue(bytesOf(chunk));
              return true;
            },
            end(chunk) {
              if (!open) return;
              open = false;
              if (chunk) controller.enqueue(bytesOf(chunk));
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
  const response = new Response(body, { status: 200, headers: { "Content-Type": encoding.contentType, ...EVENT_STREAM_HEADERS, ...opts.headers } });
  pumps.set(response, pump);
  return response;
}
