// A JSON answer held as the pieces of its text, in order, with its UTF-8 length: an answer made
// of texts that came ready-made (a /history page is the texts PostgreSQL rendered) is encoded
// once, where it is written, into whatever buffer the writer has, rather than into a buffer of
// its own per answer (see server/http/page-buffers.ts).

export type JsonText = { readonly pieces: readonly string[]; readonly byteLength: number };

export function jsonText(pieces: readonly string[]): JsonText {
  let byteLength = 0;
  for (const piece of pieces) byteLength += Buffer.byteLength(piece);
  return { pieces, byteLength };
}

/** Encodes `text` into the start of `into` (at least `text.byteLength` long); returns that part of it. */
export function encodeJsonText(text: JsonText, into: Buffer = Buffer.allocUnsafe(text.byteLength)): Buffer {
  let at = 0;
  for (const piece of text.pieces) at += into.write(piece, at);
  if (at !== text.byteLength) throw new Error(`A JSON answer came out ${at} bytes long instead of ${text.byteLength}`);
  return into.subarray(0, at);
}
