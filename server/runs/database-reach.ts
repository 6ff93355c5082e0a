import "server-only";

// Whether this instance still reaches its database, as the run engine's own writes tell: the event
// log's group commits and the runs' heartbeat. The database is taken for lost once a write has
// been tried for DATABASE_LOST_AFTER_MS without any succeeding since (refused at once when the
// server is down, or waiting out the statement timeout when it froze). Streams served from this
// instance's memory then end, without a terminal event, so their clients reconnect (here or on
// another instance) and resume from their last event id, rather than hearing nothing until the
// run's end gives up (server/runs/subscribe.ts).

export const DATABASE_LOST_AFTER_MS = 10_000;

// When the oldest write tried since the last success began; null while the last write succeeded.
let triedSince: number | null = null;
let timer: NodeJS.Timeout | null = null;
const listeners = new Set<() => void>();

function lost(): void {
  timer = null;
  for (const listener of [...listeners]) listener();
}

/** Runs one of the engine's writes, noting whether it reached the database. */
export async function reachingDatabase<T>(write: () => Promise<T>): Promise<T> {
  if (triedSince === null) {
    triedSince = performance.now();
    timer = setTimeout(lost, DATABASE_LOST_AFTER_MS);
    timer.unref();
  }
  const result = await write();
  triedSince = null;
  if (timer) clearTimeout(timer);
  timer = null;
  return result;
}

/** True while this instance has lost its database (see above). */
export function isDatabaseLost(): boolean {
  return triedSince !== null && performance.now() - triedSince >= DATABASE_LOST_AFTER_MS;
}

/** Calls `listener` each time this instance loses its database, until the returned function is called. */
export function onDatabaseLost(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
