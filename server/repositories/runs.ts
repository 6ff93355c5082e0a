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

export async function findActiveRunOnThread({ threadId }: { threadId: string }, db: Db): Promise<{ runId: string } | null> {
  const { rows } = await db.query<{ runId: string }>(
    `select run_id as "runId" from runs where thread_id = $1 and status in ('queued', 'running') limit 1`,
    [threadId],
  );
  return rows[0] ?? null;
}

export async function insertRun(
  data: {
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
  },
  db: Db,
): Promise<RunRow> {
  const { rows } = await db.query<RunRow>(
    `insert into runs (id, run_id, thread_id, user_id, status, protocol, runner, input, deadline_at, heartbeat_at, binding_id, "authorization", event_id)
     values (gen_random_uuid(), $1, $2, $3, 'queued', $4, $5, $6, $7, now(), $8, $9, $10) returning ${RUN_COLUMNS}`,
    [
      data.runId,
      data.threadId,
      data.userId,
      data.protocol,
      data.runner,
      JSON.stringify(data.input),
      data.deadlineAt,
      data.bindingId ?? null,
      data.authorization == null ? null : JSON.stringify(data.authorization),
      data.eventId ?? null,
    ],
  );
  return rows[0]!;
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
