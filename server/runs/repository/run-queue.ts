import "server-only";
import pg from "pg";
import { getPool } from "../../db";
import { env, requireDirectDatabaseUrl } from "../../env";
import { logger } from "../../logger";
import { toRunRow, type RunRow } from "./runs";

// The SQL of runs that wait their turn on a busy thread (the enqueue policy): starting one when its
// job runs, their places in line, and the pool graphile-worker's runner uses. Accepting and passing
// the turn on are in dispatch_accept_run and the dispatch_run_ended trigger.

/** A waiting run that just became running here: what its executor needs. */
export type StartedQueuedRun = {
  run: RunRow;
  runner: string;
  input: unknown;
  generation: Record<string, unknown> | null;
  attempt: number;
  bindingId: string | null;
  apiKeyHash: string | null;
  /** The attachment refs its user message recorded (user_message_attachments), if any. */
  attachments: unknown;
};

/**
 * Starts the waiting run `id` (dispatch_start_queued_run): running, its lease and its attempt on
 * `instance` (the caller), its messages added to the thread. Null when it waits no more
 * (cancelled, started) or its thread's turn is another run's.
 */
export async function startQueuedRunRow({ id, instance }: { id: string; instance: string }): Promise<StartedQueuedRun | null> {
  const { rows } = await getPool().query<{ result: ({ status: "started"; run: RunRow } & Omit<StartedQueuedRun, "run">) | { status: "not_its_turn" } | null }>(
    `select dispatch_start_queued_run($1, $2) as result`,
    [id, instance],
  );
  const result = rows[0]?.result;
  if (!result || result.status !== "started") return null;
  return { ...result, run: toRunRow(result.run) };
}

/** Where each of these runs stands among its thread's waiting runs (1: the next to start); absent: not waiting. */
export async function queuePositions({ ids }: { ids: string[] }): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const { rows } = await getPool().query<{ id: string; position: number }>(
    `select w.id, (select count(*)::int from runs o
        where o.status = 'queued' and o.thread_id = w.thread_id and o.queued_input is not null
          and (o.created_at, o.id) <= (w.created_at, w.id)) as position
     from runs w where w.id = any($1::uuid[]) and w.status = 'queued' and w.queued_input is not null`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.position]));
}

/** The thread's runs still waiting their turn, oldest first. */
export async function findWaitingRuns({ threadId }: { threadId: string }): Promise<RunRow[]> {
  const { rows } = await getPool().query<{ run: RunRow }>(
    `select dispatch_run_json(r) as run from runs r
     where r.status = 'queued' and r.thread_id = $1 and r.queued_input is not null order by r.created_at, r.id`,
    [threadId],
  );
  return rows.map((r) => toRunRow(r.run));
}

/** Whether the run still waits its turn (queued by the enqueue policy, not started). */
export async function isWaitingRun({ id }: { id: string }): Promise<boolean> {
  const { rowCount } = await getPool().query(`select 1 from runs where id = $1 and status = 'queued' and queued_input is not null`, [id]);
  return (rowCount ?? 0) > 0;
}

/** How many runs wait their turn, across all threads (the queue-depth gauge). */
export async function countWaitingRuns(): Promise<number> {
  const { rows } = await getPool().query<{ n: number }>(`select count(*)::int as n from runs where status = 'queued' and queued_input is not null`);
  return rows[0]?.n ?? 0;
}

/**
 * Unlocks the start jobs locked for longer than `olderThanMs`: a start job takes milliseconds, so
 * one locked that long was taken by a worker that died (graphile-worker itself would wait four
 * hours). Answers how many jobs were freed; the workers are woken to take them.
 */
export async function unlockStalledStartJobs({ task, olderThanMs }: { task: string; olderThanMs: number }): Promise<number> {
  const { rows } = await getPool().query<{ n: number }>(
    `with stalled as (
       select array_agg(distinct locked_by) as workers, count(*)::int as n from graphile_worker.jobs
       where task_identifier = $1 and locked_at < now() - $2 * interval '1 millisecond'
     )
     select n, graphile_worker.force_unlock_workers(workers)::text, pg_notify('jobs:insert', '{"count":1}') from stalled where n > 0`,
    [task, olderThanMs],
  );
  return rows[0]?.n ?? 0;
}

/**
 * A pool of its own for graphile-worker's runner: its LISTEN session needs a direct connection
 * (DATABASE_URL_UNPOOLED when DATABASE_URL goes through a transaction pooler), and its workers
 * must not wait behind the requests' pool. `size`: the runner's concurrency plus its LISTEN.
 */
export function openQueuePool(size: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: requireDirectDatabaseUrl(),
    max: size,
    connectionTimeoutMillis: env.DATABASE_CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
  });
  const lost = (err: Error & { code?: string }) => logger.warn({ code: err.code, reason: err.message }, "queue connection lost");
  // An idle client losing its connection (a database restart) must not crash the process; the pool replaces it.
  pool.on("error", lost);
  pool.on("connect", (client) => client.on("error", lost));
  return pool;
}
