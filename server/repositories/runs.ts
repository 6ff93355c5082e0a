import "server-only";
import type pg from "pg";
import { getPool } from "../db";
import type { RunStatus, TokenUsage } from "../runs/types";

export type RunRow = {
  id: string;
  runId: string;
  threadId: string;
  userId: string;
  status: RunStatus;
  protocol: string;
  runner: string;
  model: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  usage: TokenUsage | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  deadlineAt: Date;
};

const RUN_COLUMNS = `id, run_id as "runId", thread_id as "threadId", user_id as "userId", status, protocol, runner, model,
  error_code as "errorCode", error_message as "errorMessage", usage, created_at as "createdAt", started_at as "startedAt",
  finished_at as "finishedAt", deadline_at as "deadlineAt"`;

type Db = pg.Pool | pg.PoolClient;

export async function findRunByClientId({ userId, runId }: { userId: string; runId: string }, db: Db = getPool()): Promise<RunRow | null> {
  const { rows } = await db.query<RunRow>(`select ${RUN_COLUMNS} from runs where user_id = $1 and run_id = $2`, [userId, runId]);
  return rows[0] ?? null;
}

export async function findRunById({ id }: { id: string }): Promise<RunRow | null> {
  const { rows } = await getPool().query<RunRow>(`select ${RUN_COLUMNS} from runs where id = $1`, [id]);
  return rows[0] ?? null;
}

export type NewRun = {
  runId: string;
  threadId: string;
  userId: string;
  protocol: string;
  runner: string;
  input: unknown;
  deadlineAt: Date;
  bindingId?: string | null;
  authorization?: unknown;
  eventId?: string | null;
};

export type RunUserMessage = { messageId: string; content: string; metadata: Record<string, unknown> };

/**
 * Inserts a queued run and its user message (with the thread's next seq) in one round trip,
 * unless this user already has a run with that runId (`existing`) or the thread has a run in
 * progress (`busyRunId`); then nothing is written. Call it after locking the thread in the same
 * transaction, in a statement of its own: its snapshot must be taken after the lock was granted,
 * so it sees the runs that the previous lock holder committed.
 */
export async function insertRunUnlessTaken(
  { run, message }: { run: NewRun; message: RunUserMessage },
  db: pg.PoolClient,
): Promise<{ inserted: RunRow | null; existing: RunRow | null; busyRunId: string | null }> {
  const { rows } = await db.query<{ inserted: RunRow | null; existing: RunRow | null; busyRunId: string | null }>(
    `with existing as (select ${RUN_COLUMNS} from runs where user_id = $3 and run_id = $1),
     busy as (select run_id from runs where thread_id = $2 and status in ('queued', 'running') limit 1),
     inserted as (
       insert into runs (id, run_id, thread_id, user_id, status, protocol, runner, input, deadline_at, heartbeat_at, binding_id, "authorization", event_id)
       select gen_random_uuid(), $1, $2, $3, 'queued', $4, $5, $6, $7, now(), $8, $9, $10
       where not exists (select 1 from existing) and not exists (select 1 from busy)
       returning ${RUN_COLUMNS}
     ),
     s as (update threads set last_seq = last_seq + 1, updated_at = now() where id = $2 and exists (select 1 from inserted) returning last_seq),
     m as (
       insert into messages (id, thread_id, seq, role, message_id, run_id, content, metadata, created_at)
       select gen_random_uuid(), $2, s.last_seq, 'user', $11, i.id, $12, $13, now() from s, inserted i
     )
     select (select row_to_json(i) from inserted i) as inserted, (select row_to_json(e) from existing e) as existing,
       (select run_id from busy) as "busyRunId"`,
    [
      run.runId,
      run.threadId,
      run.userId,
      run.protocol,
      run.runner,
      JSON.stringify(run.input),
      run.deadlineAt,
      run.bindingId ?? null,
      run.authorization == null ? null : JSON.stringify(run.authorization),
      run.eventId ?? null,
      message.messageId,
      message.content,
      JSON.stringify(message.metadata),
    ],
  );
  const row = rows[0]!;
  return { inserted: row.inserted && toRunRow(row.inserted), existing: row.existing && toRunRow(row.existing), busyRunId: row.busyRunId };
}

// row_to_json gives timestamps as ISO strings; RunRow carries Dates like the other queries.
function toRunRow(json: RunRow): RunRow {
  const date = (v: Date | string | null) => (v == null ? null : new Date(v));
  return {
    ...json,
    createdAt: date(json.createdAt)!,
    startedAt: date(json.startedAt),
    finishedAt: date(json.finishedAt),
    deadlineAt: date(json.deadlineAt)!,
  };
}

export async function markRunStarted({ id }: { id: string }): Promise<void> {
  await getPool().query(`update runs set status = 'running', started_at = now(), heartbeat_at = now() where id = $1 and status = 'queued'`, [id]);
}

export async function heartbeatRuns({ ids }: { ids: string[] }): Promise<void> {
  if (ids.length === 0) return;
  await getPool().query(`update runs set heartbeat_at = now() where id = any($1::uuid[]) and status in ('queued', 'running')`, [ids]);
}

export async function markRunFinished(data: {
  id: string;
  status: Exclude<RunStatus, "queued" | "running">;
  errorCode?: string | null;
  errorMessage?: string | null;
  usage?: TokenUsage | null;
  model?: string | null;
}): Promise<void> {
  await getPool().query(
    `update runs set status = $2, finished_at = now(), error_code = $3, error_message = $4, usage = coalesce($5::jsonb, usage),
       model = coalesce($6, model)
     where id = $1 and status in ('queued', 'running')`,
    [data.id, data.status, data.errorCode ?? null, data.errorMessage ?? null, data.usage ? JSON.stringify(data.usage) : null, data.model ?? null],
  );
}

export async function requestRunCancel({ id }: { id: string }): Promise<void> {
  await getPool().query(`update runs set cancel_requested_at = coalesce(cancel_requested_at, now()) where id = $1`, [id]);
}

/** Runs still open whose executor stopped reporting: their server died or restarted. */
export async function findAbandonedRuns({ staleBefore }: { staleBefore: Date }): Promise<{ id: string; runId: string; threadId: string }[]> {
  const { rows } = await getPool().query<{ id: string; runId: string; threadId: string }>(
    `select id, run_id as "runId", thread_id as "threadId" from runs
     where status in ('queued', 'running') and (heartbeat_at is null or heartbeat_at < $1) limit 500`,
    [staleBefore],
  );
  return rows;
}
