import "server-only";
import pg from "pg";
import { getPool } from "../../db";
import { requireDirectDatabaseUrl } from "../../env";
import { logger } from "../../logger";

// PostgreSQL's LISTEN/NOTIFY, the database's side of the run engine's cross-instance signals.
// One LISTEN connection per process carries every cross-instance signal: new events of a
// run (so a client may follow a run from any instance) and cancel requests (so a cancel
// reaches the instance that executes the run). Streams never hold a connection themselves.
// LISTEN needs a session of its own, which a transaction pooler does not keep: it goes over the
// direct connection. Notifications only hasten what the heartbeat and followers' re-reads do anyway.

type Handler = (payload: string) => void;

const handlers = new Map<string, Set<Handler>>();
let client: pg.Client | null = null;
let connecting: Promise<void> | null = null;
let retryTimer: NodeJS.Timeout | null = null;

async function connect(): Promise<void> {
  const c = new pg.Client({ connectionString: requireDirectDatabaseUrl(), connectionTimeoutMillis: 5_000 });
  c.on("notification", (msg) => {
    for (const h of handlers.get(msg.channel) ?? []) h(msg.payload ?? "");
  });
  c.on("error", (err: Error & { code?: string }) => {
    logger.warn({ code: err.code, reason: err.message }, "notification connection lost; reconnecting");
    dropAndRetry(c);
  });
  c.on("end", () => dropAndRetry(c));
  await c.connect();
  for (const channel of handlers.keys()) await c.query(`listen ${channel}`);
  client = c;
}

function dropAndRetry(c: pg.Client): void {
  if (client !== c && client !== null) return;
  client = null;
  c.end().catch(() => {});
  if (retryTimer || handlers.size === 0) return;
  retryTimer = setTimeout(() => {
    retryTimer = null;
    void ensureConnected().catch(() => dropAndRetry(c));
  }, 1_000);
  retryTimer.unref();
}

function ensureConnected(): Promise<void> {
  if (client) return Promise.resolve();
  connecting ??= connect().finally(() => (connecting = null));
  return connecting;
}

/** Listens on `channel` for as long as the returned function is not called. */
export async function listen(channel: string, handler: Handler): Promise<() => void> {
  let set = handlers.get(channel);
  const isNewChannel = !set;
  if (!set) {
    set = new Set();
    handlers.set(channel, set);
  }
  set.add(handler);
  try {
    await ensureConnected();
  } catch (err) {
    set.delete(handler);
    throw err;
  }
  if (isNewChannel && client) await client.query(`listen ${channel}`);
  return () => {
    set.delete(handler);
  };
}

/** Stops every listener and closes the LISTEN connection: the server is stopping. */
export async function stopListening(): Promise<void> {
  handlers.clear();
  if (retryTimer) clearTimeout(retryTimer);
  retryTimer = null;
  const c = client;
  client = null;
  await c?.end().catch(() => {});
}

export async function notify(channel: string, payload: string): Promise<void> {
  await getPool().query("select pg_notify($1, $2)", [channel, payload]);
}
