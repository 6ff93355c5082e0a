// NDJSON framing over the protocol's line splitter (the host reads runner results with the
// same one): LF lines, an optional CR before it dropped, blank lines skipped. A line longer
// than maxLineBytes throws; it is never held in memory.
import { ndjsonLines as splitLines } from "../../server/protocols/runner/ndjson-lines";

export class NdjsonLineTooLong extends Error {
  constructor(readonly limit: number) {
    super(`An NDJSON line is longer than ${limit} bytes`);
  }
}

export async function* ndjsonLines(body: AsyncIterable<Uint8Array>, opts: { maxLineBytes?: number } = {}): AsyncGenerator<string> {
  const limit = opts.maxLineBytes ?? Infinity;
  for await (const item of splitLines(body, limit)) {
    if ("oversize" in item) throw new NdjsonLineTooLong(limit);
    const line = item.line.endsWith("\r") ? item.line.slice(0, -1) : item.line;
    if (line.trim()) yield line;
  }
}

/** Parses each line as JSON; a line that is not JSON throws a SyntaxError naming its position. */
export async function* ndjsonValues(body: AsyncIterable<Uint8Array>, opts: { maxLineBytes?: number } = {}): AsyncGenerator<unknown> {
  let n = 0;
  for await (const line of ndjsonLines(body, opts)) {
    n += 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new SyntaxError(`NDJSON line ${n} is not JSON: ${line.slice(0, 80)}`);
    }
    yield value;
  }
}
