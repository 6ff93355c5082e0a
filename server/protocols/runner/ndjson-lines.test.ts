import { describe, expect, it } from "vitest";
import { ndjsonLines, type LineEvent } from "./ndjson-lines";

async function collect(chunks: string[], max: number): Promise<LineEvent[]> {
  async function* source() {
    for (const c of chunks) yield Buffer.from(c);
  }
  const out: LineEvent[] = [];
  for await (const e of ndjsonLines(source(), max)) out.push(e);
  return out;
}

describe("ndjsonLines", () => {
  it("joins lines split across chunks and keeps a last line without newline", async () => {
    expect(await collect(['{"a":', '1}\n{"b"', ":2}\n", '{"c":3}'], 100)).toEqual([{ line: '{"a":1}' }, { line: '{"b":2}' }, { line: '{"c":3}' }]);
  });

  it("skips an over-long line by size and resumes at the next one", async () => {
    const out = await collect(["short\n", "x".repeat(30), "y".repeat(30), "\nnext\n"], 40);
    expect(out).toEqual([{ line: "short" }, { oversize: 60 }, { line: "next" }]);
  });

  it("handles multibyte characters split between chunks", async () => {
    const bytes = Buffer.from("héllo\n");
    async function* source() {
      yield bytes.subarray(0, 2);
      yield bytes.subarray(2);
    }
    const out: LineEvent[] = [];
    for await (const e of ndjsonLines(source(), 100)) out.push(e);
    expect(out).toEqual([{ line: "héllo" }]);
  });
});
