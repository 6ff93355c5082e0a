import "server-only";
import type pg from "pg";
import { getPool } from "../db";

/** Where a statement runs: the pool, or a project_cli handler's connection (its write's transaction). */
export type Db = Pick<pg.ClientBase, "query">;

// Every statement about schedules. A schedule's next due time is a graphile-worker job whose key
// names the schedule and that time (schedule:<id>:<epoch ms>), added by the same statement that
// sets next_run_at: the job and the row never disagree for long, and two instances adding the
// same due time make one job. A job whose time is not the row's next_run_at any more (paused,
// changed, deleted) finds nothing to fire.

export type ScheduleRow = {
  id: string;
  userId: string;
  name: string | null;
  message: string;
  cron: string | null;
  timeZone: string;
  runAt: Date | null;
  threadId: string | null;
  createdVia: string;
  pausedAt: Date | null;
  nextRunAt: Date | null;
  lastRunAt: Date | null;
  lastRunId: string | null;
  lastThreadId: string | null;
  lastError: string | null;
  runCount: number;
  createdAt: Date;
};

/** Whose schedules a statement may touch: one user's, or (an admin's console) anyone's. */
export type ScheduleScope = { userId: string | null };

/** The task a schedule's due time runs as (server/queue/worker.ts). */
export const SCHEDULE_FIRE_TASK = "dispatch_schedule_fire";

const SCHEDULE = `s.id, s.user_id as "userId", s.name, s.message, s.cron, s.time_zone as "timeZone", s.run_at as "runAt",
  s.thread_id as "threadId", s.created_via as "createdVia", s.paused_at as "pausedAt", s.next_run_at as "nextRunAt",
  s.last_run_at as "lastRunAt", s.last_run_id as "lastRunId", s.last_thread_id as "lastThreadId", s.last_error as "lastError",
  s.run_count as "runCount", s.created_at as "createdAt"`;

const dueMs = (at: string) => `(extract(epoch from ${at}) * 1000)::bigint`;
const jobKey = (id: string, at: string) => `'schedule:' || ${id} || ':' || ${dueMs(at)}`;
/** The job of `s`'s next due time (nothing when it has none); `mode` as graphile-worker's job_key_mode. */
const addJob = (mode = "replace") =>
  `case when s.next_run_at is not null then graphile_worker.add_job('${SCHEDULE_FIRE_TASK}', json_build_object('id', s.id, 'due', ${dueMs("s.next_run_at")}),
     run_at := s.next_run_at, job_key := ${jobKey("s.id", "s.next_run_at")}, job_key_mode := '${mode}', max_attempts := 10) end`;
/** Removes the job of a due time the row no longer has (harmless when it ran or never existed). */
const removeJob = (id: string, at: string) => `case when ${at} is not null then graphile_worker.remove_job(${jobKey(id, at)}) end`;

export type NewSchedule = {
  userId: string;
  name: string | null;
  message: string;
  cron: string | null;
  timeZone: string;
  runAt: Date | null;
  threadId: string | null;
  createdVia: string;
  paused: boolean;
  nextRunAt: Date | null;
};

/** The new schedule and its first job; null when the user already keeps `limit` schedules. */
export async function insertSchedule(n: NewSchedule & { limit: number }, db: Db = getPool()): Promise<ScheduleRow | null> {
  const { rows } = await db.query<ScheduleRow & { job: unknown }>(
    `with s as (
       insert into schedules (id, user_id, name, message, cron, time_zone, run_at, thread_id, created_via, paused_at, next_run_at, updated_at)
       select gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, case when $9::boolean then now() end, case when $9::boolean then null else $10::timestamptz end, now()
       where (select count(*) from schedules where user_id = $1) < $11
       returning *)
     select ${SCHEDULE}, ${addJob()} as job from s`,
    [n.userId, n.name, n.message, n.cron, n.timeZone, n.runAt, n.threadId, n.createdVia, n.paused, n.nextRunAt, n.limit],
  );
  const row = rows[0];
  if (!row) return null;
  const { job: _job, ...schedule } = row;
  return schedule;
}

export async function listSchedules({ userId }: ScheduleScope, db: Db = getPool()): Promise<ScheduleRow[]> {
  const { rows } = await db.query<ScheduleRow>(
    `select ${SCHEDULE} from schedules s where $1::uuid is null or s.user_id = $1 order by s.created_at desc, s.id limit 500`,
    [userId],
  );
  return rows;
}

export async function findSchedule({ id, userId }: ScheduleScope & { id: string }, db: Db = getPool()): Promise<ScheduleRow | null> {
  const { rows } = await db.query<ScheduleRow>(`select ${SCHEDULE} from schedules s where s.id = $1 and ($2::uuid is null or s.user_id = $2)`, [id, userId]);
  return rows[0] ?? null;
}

export type ScheduleChange = ScheduleScope & {
  id: string;
  name?: string | null;
  message?: string;
  cron: string | null;
  timeZone: string;
  runAt: Date | null;
  paused: boolean;
  /** The due time from now on (null: none); its job replaces the old one's. */
  nextRunAt: Date | null;
};

/** Writes the schedule as the service worked it out, moving its job to the new due time. */
export async function updateSchedule(c: ScheduleChange, db: Db = getPool()): Promise<ScheduleRow | null> {
  const { rows } = await db.query<ScheduleRow & { job: unknown; removed: unknown }>(
    `with old as (select id, next_run_at from schedules where id = $1 and ($2::uuid is null or user_id = $2) for update),
     s as (
       update schedules s set
         name = case when $3::boolean then $4 else s.name end, message = coalesce($5, s.message),
         cron = $6, time_zone = $7, run_at = $8,
         paused_at = case when $9::boolean then coalesce(s.paused_at, now()) end,
         next_run_at = $10, updated_at = now()
       from old where s.id = old.id returning s.*)
     select ${SCHEDULE}, ${addJob()} as job,
       (select ${removeJob("old.id::text", "old.next_run_at")} from old where old.next_run_at is distinct from s.next_run_at) as removed
     from s`,
    [c.id, c.userId, c.name !== undefined, c.name ?? null, c.message ?? null, c.cron, c.timeZone, c.runAt, c.paused, c.nextRunAt],
  );
  const row = rows[0];
  if (!row) return null;
  const { job: _job, removed: _removed, ...schedule } = row;
  return schedule;
}

export async function deleteSchedule({ id, userId }: ScheduleScope & { id: string }, db: Db = getPool()): Promise<boolean> {
  const { rows } = await db.query<{ removed: unknown }>(
    `with s as (delete from schedules where id = $1 and ($2::uuid is null or user_id = $2) returning id, next_run_at)
     select ${removeJob("s.id::text", "s.next_run_at")} as removed from s`,
    [id, userId],
  );
  return rows.length > 0;
}

/** The schedule when `due` is still its next due time and it is not paused: the job's time to fire; null otherwise (a stale job). */
export async function findFiring({ id, due }: { id: string; due: Date }): Promise<ScheduleRow | null> {
  const { rows } = await getPool().query<ScheduleRow>(
    `select ${SCHEDULE} from schedules s where s.id = $1 and s.next_run_at = $2 and s.paused_at is null`,
    [id, due],
  );
  return rows[0] ?? null;
}

/**
 * Records that `due` fired (the run it started, or why none did) and moves the schedule to `next`
 * with its job, if `due` is still its next due time; false when someone else did (or it changed).
 */
export async function advanceSchedule(a: { id: string; due: Date; next: Date | null; runId: string | null; threadId: string | null; error: string | null }): Promise<boolean> {
  const { rows } = await getPool().query<{ job: unknown }>(
    `with s as (
       update schedules s set next_run_at = $3, last_run_at = $2, last_run_id = coalesce($4, s.last_run_id),
         last_thread_id = coalesce($5, s.last_thread_id), last_error = $6, run_count = s.run_count + case when $4::text is null then 0 else 1 end
       where s.id = $1 and s.next_run_at = $2 and s.paused_at is null returning s.*)
     select ${addJob()} as job from s`,
    [a.id, a.due, a.next, a.runId, a.threadId, a.error],
  );
  return rows.length > 0;
}

/**
 * Adds the job of every unpaused schedule overdue by more than `graceMs` that has none (one lost,
 * or one that failed for good): a job already there, waiting or running, is left alone. Answers
 * how many it looked at.
 */
export async function requeueOverdueSchedules({ graceMs, limit }: { graceMs: number; limit: number }): Promise<number> {
  const { rows } = await getPool().query<{ job: unknown }>(
    `select ${addJob("unsafe_dedupe")} as job from (
       select * from schedules where paused_at is null and next_run_at < now() - make_interval(secs => $1::double precision / 1000)
       order by next_run_at limit $2) s`,
    [graceMs, limit],
  );
  return rows.length;
}
