import { encode as encodeProtobuf, AGUI_MEDIA_TYPE } from "@ag-ui/proto";
import type { EventRecord } from "../../kernel/runs";
import { legacyEventJson } from "./legacy-events";
import { encodeSseFrame, SSE_RESPONSE_HEADERS, sseComment } from "./sse";

// How a run's events go on the wire, chosen per request from its Accept header and the client's
// AG-UI protocol version. @ag-ui/client's HttpAgent asks for `text/event-stream` and reads
// protobuf instead when the answer's Content-Type is exactly AGUI_MEDIA_TYPE: frames of a 4-byte
// big-endian length, then one @ag-ui/proto message, with nothing between them.

export const JSON_MEDIA_TYPE = "application/json";
export const SSE_MEDIA_TYPE = "text/event-stream";
export const PROTO_MEDIA_TYPE = AGUI_MEDIA_TYPE;

/** What one record becomes on the wire: text for SSE, bytes for protobuf. */
export type EventFrame = string | Uint8Array;

export type EventEncoding = {
  /** The answer's Content-Type header. */
  contentType: string;
  /**
   * One record's frame. A record with seq 0 is not in the run's log (a snapshot built for the
   * answer): its SSE frame has no `id:` line, so a client's Last-Event-ID stays a log position.
   */
  frame(rec: EventRecord): EventFrame;
  /**
   * A frame every reader skips, sent while the stream is idle so proxies keep it open; null for
   * protobuf, whose readers take any frame, even an empty one, as an event (and fail on it).
   */
  heartbeat: string | null;
};

export type NegotiatedEncoding = { ok: true; encoding: EventEncoding } | { ok: false; message: string; served: string[] };

// ---- Accept ---------------------------------------------------------------------------------
//
// The rule. It is @ag-ui/encoder's (the `negotiator` package's) but for the parts marked *:
// - A media range is `type/subtype` with an optional `q` from 0 to 1 (1 when absent); q=0 refuses
//   what the range matches. *Other parameters (`charset=utf-8`) are ignored rather than required
//   to match. *A range that cannot be read (a bad q included) is skipped, and a header with no
//   readable range counts as absent; an absent header is `*/*`.
// - An offered type takes the q of the most specific range that matches it (exact, `type/*`,
//   `*/*`). The highest q wins; on a tie, a type the header names beats one a wildcard reaches,
//   then the range written first wins, then the endpoint's own order of preference.
// - *Protobuf is served only to a client that names it: no wildcard reaches it. @ag-ui/encoder
//   answers `*/*` (curl, fetch's default) with protobuf; a binary stream nobody named is a
//   surprise, so here `*/*` gets the endpoint's first type.
// So no header and `*/*` mean the 202 JSON on POST /api/v1/agent/runs and SSE on a stream-only
// endpoint; `application/vnd.ag-ui.event+proto, text/event-stream` (what an HttpAgent sends when
// its headers carry the first) and `text/event-stream;q=0.5, application/vnd.ag-ui.event+proto`
// mean protobuf; `text/html` alone is refused (406).

type MediaRange = { type: string; subtype: string; q: number; index: number };

// Splits on `sep` outside double quotes, as the negotiator does.
function splitOutsideQuotes(text: string, sep: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    if (char === sep && !quoted) {
      parts.push(current);
      current = "";
    } else current += char;
  }
  parts.push(current);
  return parts;
}

const RANGE = /^([^\s/;]+)\/([^\s/;]+)$/;
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  splitOutsideQuotes(header, ",").forEach((item, index) => {
    const [range = "", ...params] = splitOutsideQuotes(item, ";").map((part) => part.trim());
    const match = RANGE.exec(range);
    if (!match) return;
    let q = 1;
    for (const param of params) {
      const eq = param.indexOf("=");
      if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== "q") continue;
      const value = param.slice(eq + 1).trim();
      if (!QVALUE.test(value)) return;
      q = Number(value);
      break; // what follows q is accept-extensions, not media type parameters
    }
    ranges.push({ type: match[1]!.toLowerCase(), subtype: match[2]!.toLowerCase(), q, index });
  });
  return ranges;
}

const ANY = parseAccept("*/*");

type Fit = { q: number; specificity: number; index: number };

function fitOf(offered: string, ranges: readonly MediaRange[]): Fit | null {
  const [type, subtype] = offered.split("/") as [string, string];
  let best: Fit | null = null;
  for (const range of ranges) {
    const specificity = range.type === type && range.subtype === subtype ? 2 : range.type === type && range.subtype === "*" ? 1 : range.type === "*" && range.subtype === "*" ? 0 : -1;
    if (specificity < 0 || (offered === PROTO_MEDIA_TYPE && specificity < 2)) continue;
    if (!best || specificity > best.specificity || (specificity === best.specificity && range.q > best.q)) best = { q: range.q, specificity, index: range.index };
  }
  return best;
}

/**
 * The type, among those an endpoint can answer with (in its own order of preference), that the
 * Accept header prefers; null when it refuses them all. The rule is in the comment above.
 */
export function preferredMediaType<T extends string>(accept: string | null | undefined, offered: readonly T[]): T | null {
  const parsed = accept ? parseAccept(accept) : [];
  const ranges = parsed.length > 0 ? parsed : ANY;
  let best: { type: T; fit: Fit } | null = null;
  for (const type of offered) {
    const fit = fitOf(type, ranges);
    if (!fit || fit.q <= 0) continue;
    if (!best || fit.q > best.fit.q || (fit.q === best.fit.q && (fit.specificity > best.fit.specificity || (fit.specificity === best.fit.specificity && fit.index < best.fit.index)))) {
      best = { type, fit };
    }
  }
  return best?.type ?? null;
}

const RUN_ANSWERS = [JSON_MEDIA_TYPE, SSE_MEDIA_TYPE, PROTO_MEDIA_TYPE] as const;

/**
 * For an endpoint that answers either JSON (202) or the run's event stream: true when the Accept
 * header prefers a stream, which is then never answered with JSON. False also when it accepts
 * neither; check JSON with preferredMediaType before answering it.
 */
export function wantsEventStream(accept: string | null | undefined): boolean {
  const preferred = preferredMediaType(accept, RUN_ANSWERS);
  return preferred === SSE_MEDIA_TYPE || preferred === PROTO_MEDIA_TYPE;
}

// ---- protocol versions ----------------------------------------------------------------------

/**
 * True for a client that predates AG-UI 1.0. @ag-ui/client sends RunAgentInput.protocolVersion
 * from 1.0 on (as "1.0") and never before, so its absence is the signal; an explicit 0.x also
 * counts. A version that is not `major.minor` still comes from a client that knows the field,
 * so it gets 1.0 events, as does a later one (1.x keeps 1.0's events readable).
 */
export function isLegacyProtocol(protocolVersion: string | null | undefined): boolean {
  const version = protocolVersion?.trim();
  if (!version) return true;
  const major = /^(\d+)\.\d+$/.exec(version)?.[1];
  return major !== undefined && Number(major) < 1;
}

// ---- encodings ------------------------------------------------------------------------------

const HEARTBEAT = sseComment("ping");

const sseEncoding = (toJson: (rec: EventRecord) => string): EventEncoding => ({
  contentType: SSE_RESPONSE_HEADERS["Content-Type"],
  frame: (rec) => encodeSseFrame(rec.seq > 0 ? rec.seq : null, toJson(rec)),
  heartbeat: HEARTBEAT,
});

/** AG-UI 1.0 over SSE: the stored JSON as it is. */
export const SSE_ENCODING = sseEncoding((rec) => rec.json);
/** For clients before AG-UI 1.0: each event as their schemas accept it (legacy-events.ts). */
export const LEGACY_SSE_ENCODING = sseEncoding((rec) => legacyEventJson(rec.type, rec.json));

// Every event in a run's log passed the event guard (the AG-UI 1.0 schema, no unknown fields),
// and @ag-ui/proto 1.0.0 carries every field of every event the guard admits (encoding.test.ts
// round-trips each type), so a 1.0 client that asks for protobuf loses nothing. Clients before
// 1.0 are never sent it: their @ag-ui/proto decodes neither TOOL_CALL_RESULT nor the REASONING_*
// and ACTIVITY_* events of 1.0's schema.
export const PROTO_ENCODING: EventEncoding = {
  contentType: PROTO_MEDIA_TYPE,
  frame(rec) {
    const message = encodeProtobuf(JSON.parse(rec.json));
    const frame = new Uint8Array(4 + message.length);
    new DataView(frame.buffer).setUint32(0, message.length, false);
    frame.set(message, 4);
    return frame;
  },
  heartbeat: null,
};

/**
 * The encoding of a run's event stream for a request: its Accept header, and the AG-UI protocol
 * version its client declared (RunAgentInput.protocolVersion; absent for clients before 1.0).
 * A refusal says which types this client could have had; the caller answers it with 406.
 */
export function negotiateEventEncoding(opts: { accept: string | null | undefined; protocolVersion: string | null | undefined }): NegotiatedEncoding {
  const legacy = isLegacyProtocol(opts.protocolVersion);
  const served = legacy ? [SSE_MEDIA_TYPE] : [SSE_MEDIA_TYPE, PROTO_MEDIA_TYPE];
  const preferred = preferredMediaType(opts.accept, served);
  if (preferred === PROTO_MEDIA_TYPE) return { ok: true, encoding: PROTO_ENCODING };
  if (preferred === SSE_MEDIA_TYPE) return { ok: true, encoding: legacy ? LEGACY_SSE_ENCODING : SSE_ENCODING };
  const note = legacy && preferredMediaType(opts.accept, [PROTO_MEDIA_TYPE]) ? `; ${PROTO_MEDIA_TYPE} needs RunAgentInput.protocolVersion "1.0" or later` : "";
  return { ok: false, message: notAcceptableMessage(served) + note, served };
}

/** The message of a 406: which types the answer could have been. */
export function notAcceptableMessage(served: readonly string[]): string {
  return `The Accept header accepts none of the types served here: ${served.join(", ")}`;
}

/** True for a Content-Type of an event stream, which is streamed rather than sent whole. */
export function isEventStreamContentType(contentType: string | null | undefined): boolean {
  return !!contentType && (contentType.startsWith(SSE_MEDIA_TYPE) || contentType === PROTO_MEDIA_TYPE);
}
