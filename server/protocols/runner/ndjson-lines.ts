// Shared by the host (reading a runner's results) and the SDK (reading host API streams).
// Splits a byte stream into NDJSON lines without ever holding more than `maxLine` bytes of
// one line: a longer line is reported by its size and skipped up to its newline.

export type LineEvent = { line: string } | { oversize: number };

export async function* ndjsonLines(source: AsyncIterable<Uint8Array>, maxLine: number): AsyncGenerator<LineEvent> {
  let parts: Buffer[] = [];
  let size = 0;
  let skipping = false;
  for await (const chunk of source) {
    let buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    for (;;) {
      const nl = buf.indexOf(10);
      const piece = nl === -1 ? buf : buf.subarray(0, nl);
      if (!skipping) {
        size += piece.byteLength;
        if (size > maxLine) {
          skipping = true;
          parts = [];
        } else if (piece.byteLength > 0) {
          parts.push(Buffer.from(piece));
        }
      } else {
        size += piece.byteLength;
      }
      if (nl === -1) break;
      if (skipping) yield { oversize: size };
      else yield { line: Buffer.concat(parts).toString("utf8") };
      parts = [];
      size = 0;
      skipping = false;
      buf = buf.subarray(nl + 1);
    }
  }
  if (skipping) yield { oversize: size };
  else if (size > 0) yield { line: Buffer.concat(parts).toString("utf8") };
}
