import "server-only";
import type { AppError } from "../kernel/errors";

// A refused upload whose body was left unread part-way: the HTTP/1.1 connection cannot carry the
// client's next request, so the answer closes it.

const DRAIN_MAX_BYTES = 16 * 1024 * 1024;
const DRAIN_MAX_MS = 2_000;

export async function closeAfterRefusal(response: Response, error: AppError, body: ReadableStream<Uint8Array> | null): Promise<void> {
  if (body && error.code === "PAYLOAD_TOO_LARGE") await drainBriefly(body);
  response.headers.set("connection", "close");
}

/**
 * Reads on (and discards) for a moment before a refusal is sent: closing a socket that still
 * has unread data resets it, and the reset can destroy the 413 on its way to a client that is
 * still sending. Bounded in bytes and time, so a huge upload is still cut off.
 */
async function drainBriefly(body: ReadableStream<Uint8Array>): Promise<void> {
  if (body.locked) return;
  const reader = body.getReader();
  const deadline = Date.now() + DRAIN_MAX_MS;
  const timer = setTimeout(() => void reader.cancel().catch(() => {}), DRAIN_MAX_MS);
  let drained = 0;
  try {
    while (drained < DRAIN_MAX_BYTES && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      drained += value.byteLength;
    }
  } catch {
    // The client went away: nothing left to protect.
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
}
