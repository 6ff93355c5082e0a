import "server-only";
import { getPool } from "../db";
import { logger } from "../logger";
import type { EventRecord } from "./types";

// Group commit for run events: appends from every run on this instance queue up and one
// multi-row INSERT writes them while the next batch gathers. The same statement notifies
// other instances (pg_notify is delivered at commit), so their subscribers read what is
// durable. A failed write keeps the batch and retries: nothing is dropped.

export const RUN_EVENTS_CHANNEL = "dispatch_run_events";

type Pending = { runId: string; rec: EventRecord; at: Date };

const INSERT_SQL = `
with ins as (
  insert into run_events (run_id, seq, type, payload, created_at)
  select * from unnest($1::uuid[], $2::int[], $3::text[], $4::json[], $5::timestamptz[])
  on conflict (run_id, seq) do nothing
  returning run_id, seq
)
select pg_notify('${RUN_EVENTS_CHANNEL}', run_id::text || ':' || max(seq)) from ins group by run_id`;

let queue: Pending[] = [];
let waiters: (() => void)[] = [];
let inFlight: Promise<void> | null = null;
let scheduled = false;
let retryDelayMs = 0;

async function writeBatch(batch: Pending[]): Promise<void> {
  await getPool().query(INSERT_SQL, [
    batch.map((p) => p.runId),
    batch.map((p) => p.rec.seq),
    batch.map((p) => p.rec.type),
    batch.map((p) => p.rec.json),
    batch.map((p) => p.at.toISOString()),
  ]);
}

function schedule(): void {
  if (scheduled || inFlight) return;
  scheduled = true;
  const run = () => {
    scheduled = false;
    void drain();
  };
  if (retryDelayMs > 0) setTimeout(run, retryDelayMs);
  else setImmediate(run);
}

async function drain(): Promise<void> {
  if (inFlight || queue.length === 0) return;
  const batch = queue;
  const done = waiters;
  queue = [];
  waiters = [];
  inFlight = writeBatch(batch).then(
    () => {
      retryDelayMs = 0;
      for (const resolve of done) resolve();
    },
    (err: unknown) => {
      retryDelayMs = Math.min(5_000, Math.max(50, retryDelayMs * 2));
      logger.error({ err, events: batch.length, retryInMs: retryDelayMs }, "could not persist run events; retrying");
      queue = batch.concat(queue);
      waiters = done.concat(waiters);
    },
  );
  await inFlight;
  inFlight = null;
  if (queue.length > 0) schedule();
}

/** Queues one event for persistence. */
export function persistEvent(runId: string, rec: EventRecord): void {
  queue.push({ runId, rec, at: new Date() });
  schedule();
}

/** Resolves once every event queued so far is durable. */
export function flushEvents(): Promise<void> {
  if (queue.length === 0 && !inFlight) return Promise.resolve();
  return new Promise((resolve) => {
    if (queue.length === 0) {
      // Only the in-flight batch is outstanding; it settles before the next drain.
      void inFlight?.then(() => (queue.length === 0 ? resolve() : waiters.push(resolve)));
      return;
    }
    waiters.push(resolve);
    schedule();
  });
}

export async function readEvents({ runId, after, limit }: { runId: string; after: number; limit: number }): Promise<EventRecord[]> {
  const { rows } = await getPool().query<{ seq: number; type: string; payload: string }>(
    "select seq, type, payload::text as payload from run_events where run_id = $1 and seq > $2 order by seq limit $3",
    [runId, after, limit],
  );
  return rows.map((r) => ({ seq: r.seq, type: r.type, json: r.payload }));
}

export async function lastPersistedSeq(runId: string): Promise<number> {
  const { rows } = await getPool().query<{ max: number | null }>("select max(seq) as max from run_events where run_id = $1", [runId]);
  return rows[0]?.max ?? 0;
}
