import "server-only";

// Buffers that whole answers made of texts (a /history page: ~250 KB the database rendered) are
// encoded into, reused from one answer to the next. A buffer allocated per answer is memory
// outside V8's heap, and V8 starts a full collection each time ~64 MB of it has been allocated
// since the last: a page a read had the server pause for a mark-compact (12-16 ms with Next's
// heap) every ~100 reads, in the slowest tenth of them. A buffer goes back to the pool once its
// answer is handed to the kernel ('finish'); one whose answer was cut off is left to the GC.

const SMALLEST = 64 * 1024;
const LARGEST = 4 * 1024 * 1024;
const IDLE_KEPT = 4;
const idle: Buffer[] = [];

/** A buffer of at least `bytes`, from the pool when one fits; null when `bytes` is above what the pool keeps. */
export function takePageBuffer(bytes: number): Buffer | null {
  if (bytes > LARGEST) return null;
  let best = -1;
  for (let i = 0; i < idle.length; i++) {
    if (idle[i]!.length >= bytes && (best === -1 || idle[i]!.length < idle[best]!.length)) best = i;
  }
  if (best !== -1) return idle.splice(best, 1)[0]!;
  let size = SMALLEST;
  while (size < bytes) size *= 2;
  return Buffer.allocUnsafeSlow(size);
}

/** Gives a buffer from takePageBuffer back once nothing reads it any more; the smallest is let go when the pool is full. */
export function releasePageBuffer(buffer: Buffer): void {
  idle.push(buffer);
  if (idle.length > IDLE_KEPT) {
    idle.sort((a, b) => b.length - a.length);
    idle.pop();
  }
}
