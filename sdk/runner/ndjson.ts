// NDJSON framing: split a byte stream into lines (LF, optional CR before it), decoding UTF-8
// across chunk boundaries. A line longer than maxLineBytes throws instead of growing memory.
export class NdjsonLineTooLong extends Error {
  constructor(readonly limit: number) {
    super(`An NDJSON line is longer than ${limit} bytes`);
  }
}

export async function* ndjsonLines(body: AsyncIterable<Uint8Array>, opts: { maxLineBytes?: number } = {}): AsyncGenerator<string> {
  const limit = opts.maxLineBytes ?? Infinity;
  const decoder = new TextDecoder();
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const take = (tail: Uint8Array): string => {
    const parts = [...pending, tail];
    pending = [];
    pendingBytes = 0;
    const line = decoder.decode(Buffer.concat(parts));
    return line.endsWith("\r") ? line.slice(0, -1) : line;
  };
  for await (const chunk of body) {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      if (pendingBytes + nl - start > limit) throw new NdjsonLineTooLong(limit);
      const line = take(chunk.subarray(start, nl));
      start = nl + 1;
      if (line.trim()) yield line;
    }
    if (start < chunk.length) {
      pendingBytes += chunk.length - start;
      if (pendingBytes > limit) throw new NdjsonLineTooLong(limit);
      pending.push(chunk.slice(start));
    }
  }
  if (pendingBytes > 0) {
    const line = take(new Uint8Array());
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
