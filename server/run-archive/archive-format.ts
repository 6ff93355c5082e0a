import "server-only";
import { createHash } from "node:crypto";
import { gunzipSync, gzipSync } from "node:zlib";
import { archivedEventLine, type ArchivedEventLine } from "./schemas";

// A run's event log as one compact object: the run's batches (run_event_batches rows) become one
// NDJSON line per event, gzip'd. Readable with `zcat | jq` by an operator; replayed byte for byte.

export type HotBatch = { firstSeq: number; lastSeq: number; types: string; events: string; createdAt: Date };

export type EncodedArchive = { body: Buffer; sha256: string; eventCount: number; lastSeq: number };

/** The batches, in order, as the archive's bytes; refuses batches that overlap or do not hold their own events. */
export function encodeArchive(batches: HotBatch[]): EncodedArchive {
  const lines: string[] = [];
  let lastSeq = 0;
  for (const b of batches) {
    const types = b.types.split(" ");
    const events = b.events.split("\n");
    if (b.firstSeq <= lastSeq || types.length !== events.length || events.length !== b.lastSeq - b.firstSeq + 1) {
      throw new Error(`the event log has a malformed batch at seq ${b.firstSeq}`);
    }
    const createdAt = b.createdAt.toISOString();
    events.forEach((event, i) => lines.push(JSON.stringify({ seq: b.firstSeq + i, type: types[i]!, createdAt, event } satisfies ArchivedEventLine)));
    lastSeq = b.lastSeq;
  }
  const body = gzipSync(`${lines.join("\n")}\n`);
  return { body, sha256: sha256Of(body), eventCount: lines.length, lastSeq };
}

/** The archive's events in order; throws when the bytes are not an archive this format wrote. */
export function decodeArchive(body: Uint8Array): ArchivedEventLine[] {
  const text = gunzipSync(body).toString("utf8");
  const lines = text.split("\n");
  if (lines.pop() !== "") throw new Error("the archive does not end with a newline");
  let lastSeq = 0;
  return lines.map((line, i) => {
    const parsed = archivedEventLine.parse(JSON.parse(line));
    if (parsed.seq <= lastSeq) throw new Error(`the archive's line ${i + 1} holds seq ${parsed.seq}, not after ${lastSeq}`);
    lastSeq = parsed.seq;
    return parsed;
  });
}

export function sha256Of(body: Uint8Array): string {
  return createHash("sha256").update(body).digest("hex");
}
