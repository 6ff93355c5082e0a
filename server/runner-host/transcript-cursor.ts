// Transcript cursors are opaque to runners: a position (message seq) in one conversation.
const PREFIX = "t1:";

export function encodeTranscriptCursor(seq: number): string {
  return Buffer.from(`${PREFIX}${seq}`, "utf8").toString("base64url");
}

/** The seq a cursor names, or null when it is not one of ours. */
export function decodeTranscriptCursor(cursor: string): number | null {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  if (!text.startsWith(PREFIX)) return null;
  const seq = Number(text.slice(PREFIX.length));
  return Number.isSafeInteger(seq) && seq >= 0 ? seq : null;
}
