import "server-only";
import { getPool, readPool } from "../../db";
import type { RunEventBatchModel } from "../../generated/prisma/models";

// The run event log, stored in batches (run_event_batches): each row holds a run's events
// first_seq..last_seq as the JSON that was streamed, one per line, with their types: the text
// itself, never rebuilt in SQL (jsonb would reorder its keys), so a replay is the bytes sent. The
// batching itself (group commit, retries) is server/runs/event-log.ts; these are its statements.

/** Where other instances hear of new events: payload `<runs.id>:<last seq>`, sent at commit. */
export const RUN_EVENTS_CHANNEL = "dispatch_run_events";

/**
 * The event log one row per event (run_id, seq, type, payload as text, created_at), for
 * readers that filter or aggregate in SQL; filter on run_id so only that run's batches
 * are expanded.
 */
export const RUN_EVENTS_SQL = `(select b.run_id, b.first_seq + e.n::int - 1 as seq, e.type, e.payload, b.created_at
  from run_event_batches b, unnest(string_to_array(b.types, ' '), string_to_array(b.events, E'\\n')) with ordinality as e(type, payload, n))`;

/** One batch to write: a run's consecutive events, written at `at` (epoch milliseconds). */
/** `attempt`: the execution of the run that wrote it; a batch of an execution the run no longer belongs to is refused. */
export type EventBatchInsert = Pick<RunEventBatchModel, "runId" | "firstSeq" | "lastSeq"> & { types: string[]; events: string[]; at: number; attempt: number };

const COLUMNS = 7;

function insertSql(rows: number): string {
  const values: string[] = [];
  for (let i = 0; i < rows; i++) {
    const p = i * COLUMNS;
    values.push(`($${p + 1}::uuid, $${p + 2}::int, $${p + 3}::int, $${p + 4}, $${p + 5}, $${p + 6}::timestamptz, $${p + 7}::int)`);
  }
  // A run closed meanwhile (by recovery on another instance, after missed heartbeats) takes no
  // more events: its log ends with the terminal event that closed it. Nor does a run another
  // instance took over (its attempt moved on): the new executor writes after what it read. Such
  // runs come back as `closed` rows, the others' new ends as `notice` rows (`<runs.id>:<last seq>`).
  // run_created_at is the run's created_at (the table's partition key): one per run, so the
  // conflict target is as unique as (run_id, first_seq).
  return `with v (run_id, first_seq, last_seq, types, events, created_at, attempt) as (values ${values.join(", ")}),
ins as (
  insert into run_event_batches (run_id, first_seq, last_seq, types, events, created_at, run_created_at)
  select v.run_id, v.first_seq, v.last_seq, v.types, v.events, v.created_at, r.created_at from v join runs r on r.id = v.run_id
  where r.status in ('queued', 'running') and r.attempt = v.attempt
  on conflict (run_id, first_seq, run_created_at) do nothing
  returning run_id, last_seq
)
select null as closed, run_id::text || ':' || max(last_seq) as notice from ins group by run_id
union all
select distinct v.run_id::text, null from v
where not exists (select 1 from runs r where r.id = v.run_id and r.status in ('queued', 'running') and r.attempt = v.attempt)`;
}

// Statements for up to this many rows are named, so each connection plans them once.
const NAMED_UP_TO = 16;

/**
 * Writes the batches of open runs in one statement; a batch whose (run, first seq) is already
 * stored is skipped, so a retried write never duplicates. Returns the runs whose batches were
 * refused because the run is closed (or gone), and `<runs.id>:<last seq>` of what it made durable,
 * for notifyDurable.
 */
export async function insertEventBatches(rows: EventBatchInsert[]): Promise<{ closedRunIds: string[]; notices: string[] }> {
  if (rows.length === 0) return { closedRunIds: [], notices: [] };
  const values: unknown[] = [];
  for (const r of rows) values.push(r.runId, r.firstSeq, r.lastSeq, r.types.join(" "), r.events.join("\n"), new Date(r.at).toISOString(), r.attempt);
  const text = insertSql(rows.length);
  const { rows: answer } = await getPool().query<{ closed: string | null; notice: string | null }>(
    rows.length <= NAMED_UP_TO ? { name: `dispatch-run-events-${rows.length}`, text, values } : { text, values },
  );
  return { closedRunIds: answer.flatMap((a) => (a.closed === null ? [] : [a.closed])), notices: answer.flatMap((a) => (a.notice === null ? [] : [a.notice])) };
}

/**
 * Tells other instances that runs' logs are durable up to a sequence (`<runs.id>:<last seq>`), in
 * a transaction of its own that does not wait for its WAL flush. PostgreSQL holds a database-wide
 * lock from a notifying transaction's commit until its WAL is flushed, so notifying inside the
 * events' own commit queued every instance's writes one flush after the other (bench/notify.ts:
 * 0.2× the commits/s of the same writes without NOTIFY at 8 writers, 25 ms to hear one); apart,
 * the lock is held for microseconds. A notification lost in a crash costs a follower one re-read
 * (server/runs/subscribe.ts), never an event.
 */
export async function notifyDurable(notices: string[]): Promise<void> {
  if (notices.length === 0) return;
  await getPool().query({
    name: "dispatch-run-events-notices",
    text: `select set_config('synchronous_commit', 'off', true), pg_notify('${RUN_EVENTS_CHANNEL}', n) from unnest($1::text[]) as n`,
    values: [notices],
  });
}

// A run's partition key, runs.created_at as PostgreSQL prints it, read once per run and kept (a
// run's creation time never changes). A read that names it as a parameter is planned against the
// run's partition alone; one that does not, or that looks it up in a subquery, probes every month's
// index (measured with 16 partitions: 3.1x and 4.7x the time of the read that names it).
const partitionKeys = new Map<string, string>();
const KEYS_KEPT = 10_000;

async function partitionKey(runId: string, fresh: boolean): Promise<string | null> {
  const kept = fresh ? undefined : partitionKeys.get(runId);
  if (kept !== undefined) return kept;
  const { rows } = await getPool().query<{ key: string }>("select created_at::text as key from runs where id = $1", [runId]);
  const key = rows[0]?.key ?? null;
  if (key === null) partitionKeys.delete(runId);
  else {
    if (partitionKeys.size >= KEYS_KEPT) partitionKeys.clear();
    partitionKeys.set(runId, key);
  }
  return key;
}

/**
 * `read` with the run's partition key. A kept key whose answer `none` doubts is checked once against
 * the run's row (a run whose created_at was edited behind the runtime's back reads as it now is).
 */
async function inRunPartition<T>(runId: string, read: (key: string) => Promise<T>, none: (found: T) => boolean, empty: T): Promise<T> {
  const kept = partitionKeys.get(runId);
  const key = kept ?? (await partitionKey(runId, true));
  if (key === null) return empty;
  const found = await read(key);
  if (kept === undefined || !none(found)) return found;
  const fresh = await partitionKey(runId, true);
  return fresh === null ? empty : fresh === kept ? found : read(fresh);
}

/**
 * The run's batches that hold events after `after`, up to `after + limit`, in order. An ended run's
 * log no longer changes: a read replica that has replayed everything committed before this read
 * (so the run's end too) answers as the primary would (docs/scaling.md "Read replicas").
 */
export async function selectEventBatches({ runId, after, limit, ended = false }: { runId: string; after: number; limit: number; ended?: boolean }) {
  type Row = Pick<RunEventBatchModel, "firstSeq" | "types" | "events">;
  const read = async (key: string) =>
    (
      await (ended ? readPool({ after: "now" }) : getPool()).query<Row>(
        `select first_seq as "firstSeq", types, events from run_event_batches
         where run_id = $1 and run_created_at = $4::timestamp and last_seq > $2 and first_seq <= $2 + $3 order by first_seq`,
        [runId, after, limit, key],
      )
    ).rows;
  // Only a read from the log's start that finds nothing is in doubt (every log starts with
  // RUN_STARTED): a caught-up follower's empty re-reads cost no second statement.
  return inRunPartition(runId, read, (rows) => rows.length === 0 && after === 0, [] as Row[]);
}

export async function findLastPersistedSeq({ runId }: { runId: string }): Promise<number> {
  const read = async (key: string) =>
    (await getPool().query<{ max: number | null }>("select max(last_seq) as max from run_event_batches where run_id = $1 and run_created_at = $2::timestamp", [runId, key]))
      .rows[0]?.max ?? 0;
  return inRunPartition(runId, read, (max) => max === 0, 0);
}
