import { gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { decodeArchive, encodeArchive, sha256Of, type HotBatch } from "./archive-format";

// The archive must give back each event's text exactly as it was stored, whatever it holds.

const at = new Date("2026-11-02T10:00:00.123Z");
const tricky = `{"type":"TEXT_MESSAGE_CONTENT","delta":"a \\"q\\" é€ 😀 \\u2028 \\\\n" , "n":2}`;
const batches: HotBatch[] = [
  { firstSeq: 1, lastSeq: 2, types: "RUN_STARTED TEXT_MESSAGE_CONTENT", events: `{"type":"RUN_STARTED"}\n${tricky}`, createdAt: at },
  { firstSeq: 3, lastSeq: 3, types: "RUN_FINISHED", events: `{ "type" : "RUN_FINISHED" }`, createdAt: new Date(at.getTime() + 5) },
];

describe("run event archive format", () => {
  it("round-trips every event's text, type, sequence number and write time", () => {
    const archive = encodeArchive(batches);
    expect(archive).toMatchObject({ eventCount: 3, lastSeq: 3, sha256: sha256Of(archive.body) });
    expect(decodeArchive(archive.body)).toEqual([
      { seq: 1, type: "RUN_STARTED", createdAt: at.toISOString(), event: `{"type":"RUN_STARTED"}` },
      { seq: 2, type: "TEXT_MESSAGE_CONTENT", createdAt: at.toISOString(), event: tricky },
      { seq: 3, type: "RUN_FINISHED", createdAt: "2026-11-02T10:00:00.128Z", event: `{ "type" : "RUN_FINISHED" }` },
    ]);
  });

  it("is NDJSON an operator can read with zcat, one event a line", () => {
    const lines = gunzipSync(encodeArchive(batches).body).toString("utf8").split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe("");
    expect(JSON.parse(lines[1]!)).toMatchObject({ seq: 2, event: tricky });
  });

  it("refuses overlapping or malformed batches rather than archiving a wrong log", () => {
    expect(() => encodeArchive([batches[0]!, { ...batches[1]!, firstSeq: 2 }])).toThrow(/malformed batch at seq 2/);
    expect(() => encodeArchive([{ ...batches[0]!, types: "RUN_STARTED" }])).toThrow(/malformed batch at seq 1/);
  });

  it("refuses bytes that are not an archive", () => {
    expect(() => decodeArchive(new Uint8Array([1, 2, 3]))).toThrow();
    const line = (seq: number) => JSON.stringify({ seq, type: "RUN_STARTED", createdAt: at.toISOString(), event: "{}" });
    expect(() => decodeArchive(gzipSync(`${line(2)}\n${line(1)}\n`))).toThrow(/holds seq 1, not after 2/);
    expect(() => decodeArchive(gzipSync(`${line(1)}`))).toThrow(/newline/);
  });
});
