// Keep-alives for a stream with long silences (a model thinking, a slow tool): proxies and
// clients give up on a connection that says nothing for a minute or so.

export const HEARTBEAT_INTERVAL_MS = 15_000;
export const HEARTBEAT: unique symbol = Symbol("heartbeat");

/**
 * The source's items, with HEARTBEAT after every `intervalMs` of silence. Nothing is lost
 * or reordered: a heartbeat only fills the wait for the next item. When the consumer
 * stops early, a pending read finishes on its own (the source's abort signal ends it).
 */
export async function* withHeartbeats<T>(source: AsyncIterable<T>, intervalMs: number = HEARTBEAT_INTERVAL_MS): AsyncGenerator<T | typeof HEARTBEAT> {
  const iterator = source[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<T>> | null = null;
  try {
    for (;;) {
      pending ??= iterator.next();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const silence = new Promise<typeof HEARTBEAT>((resolve) => {
        timer = setTimeout(() => resolve(HEARTBEAT), intervalMs);
      });
      const next = await Promise.race([pending, silence]).finally(() => clearTimeout(timer));
      if (next === HEARTBEAT) {
        yield HEARTBEAT;
        continue;
      }
      pending = null;
      if (next.done) return;
      yield next.value;
    }
  } finally {
    if (pending) {
      pending.catch(() => undefined);
      void iterator.return?.()?.catch(() => undefined);
    } else {
      await iterator.return?.();
    }
  }
}
