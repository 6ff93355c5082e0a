/**
 * A request body's bytes, read until `maxBytes` is passed: then the read stops, the stream is
 * cancelled and `tooLarge()` is thrown, so an oversize body (declared, chunked or lying about its
 * length) is never held whole.
 */
export async function readCapped(body: ReadableStream<Uint8Array> | null, maxBytes: number, tooLarge: () => Error): Promise<Uint8Array> {
  if (!body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}
