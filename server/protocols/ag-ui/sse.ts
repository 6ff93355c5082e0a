import { omitOptionalNulls } from "@ag-ui/core";
import type { AgUiEvent } from "./events";

// Server-sent events framing for AG-UI streams. @ag-ui/client's HttpAgent splits frames on
// "\n\n" (LF only) and reads only `data:` lines, so frames carry no `event:` line; the `id:`
// line is the run's sequence number, which EventSource sends back as Last-Event-ID.

/** The headers of every event stream answer, whatever its encoding (encoding.ts). */
export const EVENT_STREAM_HEADERS = {
  "Cache-Control": "no-cache, no-transform",
  // Reverse proxies (nginx) would otherwise buffer the stream and defeat streaming.
  "X-Accel-Buffering": "no",
} as const;

export const SSE_RESPONSE_HEADERS = { "Content-Type": "text/event-stream; charset=utf-8", ...EVENT_STREAM_HEADERS } as const;

/**
 * The event's JSON, produced once and then both persisted and streamed. Optional fields
 * set to null are dropped the way @ag-ui/encoder does, since consumers reject them.
 */
export function serializeEvent(event: AgUiEvent): string {
  return JSON.stringify(flat(event) ? event : omitOptionalNulls(event, "Event"));
}

// Most events (a token's TEXT_MESSAGE_CONTENT) hold only strings and numbers: with no null
// and nothing nested there is nothing to omit, and the schema walk can be skipped.
function flat(event: AgUiEvent): boolean {
  for (const key in event) {
    const value = (event as Record<string, unknown>)[key];
    if (value === null || typeof value === "object") return false;
  }
  return true;
}

const LINE_BREAK = /\r\n|\r|\n/;

/** One SSE frame: `id: <seq>\ndata: <json>\n\n`, or without the id line when seq is null. */
export function encodeSseFrame(seq: number | null, json: string): string {
  if (seq !== null && !(Number.isSafeInteger(seq) && seq >= 0)) {
    throw new RangeError(`SSE event id must be a non-negative integer, got ${String(seq)}`);
  }
  // Serialized JSON has no raw line breaks (the common case, checked cheaply); splitting
  // keeps any other text a single event.
  const data =
    json.indexOf("\n") < 0 && json.indexOf("\r") < 0
      ? `data: ${json}`
      : json
          .split(LINE_BREAK)
          .map((line) => `data: ${line}`)
          .join("\n");
  return seq === null ? `${data}\n\n` : `id: ${seq}\n${data}\n\n`;
}

/** A comment frame (heartbeat): ignored by every SSE parser, keeps proxies from timing out. */
export function sseComment(text: string): string {
  const lines = text.split(LINE_BREAK).map((line) => (line === "" ? ":" : `: ${line}`));
  return `${lines.join("\n")}\n\n`;
}

export class LastEventIdError extends Error {
  readonly status = 400;
  readonly field: "Last-Event-ID" | "after";

  constructor(field: "Last-Event-ID" | "after", value: string) {
    super(`${field} must be a non-negative integer event sequence number, got ${JSON.stringify(value.slice(0, 40))}`);
    this.name = "LastEventIdError";
    this.field = field;
  }
}

function parseSequence(field: "Last-Event-ID" | "after", raw: string | null | undefined): number | null {
  if (raw === null || raw === undefined) return null;
  const value = raw.trim();
  // EventSource omits the header when its last id is empty, so empty means "from the start".
  if (value === "") return null;
  if (!/^\d{1,16}$/.test(value)) throw new LastEventIdError(field, raw);
  const seq = Number(value);
  if (!Number.isSafeInteger(seq)) throw new LastEventIdError(field, raw);
  return seq;
}

/**
 * Where a client resumes a run's stream: the last sequence number it has seen, so replay
 * starts after it; null means from the beginning. Both values are validated; the
 * Last-Event-ID header wins over the `after` query parameter because EventSource
 * reconnects to the original URL (with its original `after`) and sends the newer position
 * in the header.
 */
export function parseLastEventId(
  headerValue: string | null | undefined,
  afterQuery: string | null | undefined,
): number | null {
  const fromHeader = parseSequence("Last-Event-ID", headerValue);
  const fromQuery = parseSequence("after", afterQuery);
  return fromHeader ?? fromQuery;
}
