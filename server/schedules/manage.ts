import "server-only";
import { z } from "zod";
import { env } from "../env";
import { AppError } from "../kernel/errors";
import { deleteSchedule, findSchedule, insertSchedule, listSchedules, updateSchedule, type Db, type ScheduleRow, type ScheduleScope } from "./repository";
import type { CreateSchedule, ScheduleView, UpdateSchedule } from "./schemas";
import { checkTiming, nextDue, type Timing } from "./times";

// A schedule's life as its owner sees it: made, listed, changed, paused, resumed, deleted. The
// service (REST, tRPC) and the project_cli schedules module (on its write's own connection, `db`)
// both come through here; firing is the service's.

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function scheduleView(s: ScheduleRow): ScheduleView {
  return {
    id: s.id,
    name: s.name,
    message: s.message,
    cron: s.cron,
    timeZone: s.timeZone,
    runAt: iso(s.runAt),
    threadId: s.threadId,
    paused: s.pausedAt !== null,
    nextRunAt: iso(s.nextRunAt),
    lastRunAt: iso(s.lastRunAt),
    lastRunId: s.lastRunId,
    lastThreadId: s.lastThreadId,
    lastError: s.lastError,
    runCount: s.runCount,
    createdAt: s.createdAt.toISOString(),
  };
}

const notFound = (id: string) => new AppError("NOT_FOUND", `No schedule ${id}`);

/** The scope, for an id that can name a row; 404 for one that cannot (so no malformed id reaches SQL). */
function scoped<T extends { id: string }>(q: T): T {
  if (!z.uuid().safeParse(q.id).success) throw notFound(q.id);
  return q;
}

/** Makes a schedule (its thread, when it names one, already checked as the owner's). */
export async function createOwnSchedule(input: CreateSchedule & { userId: string; via: string }, db?: Db): Promise<ScheduleView> {
  const timing: Timing = { cron: input.cron ?? null, timeZone: input.timeZone ?? "UTC", runAt: input.runAt ? new Date(input.runAt) : null };
  checkTiming(timing, env.SCHEDULE_MIN_INTERVAL_SECONDS);
  const row = await insertSchedule(
    {
      userId: input.userId,
      name: input.name || null,
      message: input.message,
      ...timing,
      threadId: input.threadId ?? null,
      createdVia: input.via,
      paused: input.paused ?? false,
      nextRunAt: nextDue(timing, new Date()),
      limit: env.SCHEDULES_PER_USER,
    },
    db,
  );
  if (!row) throw new AppError("CONFLICT", `You have ${env.SCHEDULES_PER_USER} schedules, the most one may keep: delete one first`);
  return scheduleView(row);
}

export async function listOwnSchedules(scope: ScheduleScope, db?: Db): Promise<ScheduleView[]> {
  return (await listSchedules(scope, db)).map(scheduleView);
}

/** Everyone's schedules with their owners, for the console. */
export async function listEverySchedule(): Promise<(ScheduleView & { userId: string })[]> {
  return (await listSchedules({ userId: null })).map((r) => ({ ...scheduleView(r), userId: r.userId }));
}

export async function getOwnSchedule(scope: ScheduleScope & { id: string }, db?: Db): Promise<ScheduleView> {
  const row = await findSchedule(scoped(scope), db);
  if (!row) throw notFound(scope.id);
  return scheduleView(row);
}

/** When the changed schedule is due next: none while paused; from now on when its timing changed or it resumes. */
function nextAfterChange(old: ScheduleRow, timing: Timing, c: { paused: boolean; retimed: boolean; newRunAt: boolean }): Date | null {
  if (c.paused) return null;
  const resumed = old.pausedAt !== null;
  if (!c.retimed && !resumed) return old.nextRunAt;
  // A one-off that fired stays fired unless it was given a new time.
  const fired = timing.cron === null && !c.newRunAt && old.lastRunAt !== null;
  return nextDue(timing, new Date(), fired);
}

/** Changes a schedule: its words, its timing (due from now on), paused or resumed (missed times skipped). */
export async function changeOwnSchedule(input: ScheduleScope & UpdateSchedule & { id: string }, db?: Db): Promise<ScheduleView> {
  const old = await findSchedule(scoped(input), db);
  if (!old) throw notFound(input.id);
  const retimed = input.cron !== undefined || input.runAt !== undefined || input.timeZone !== undefined;
  const timing: Timing = {
    cron: input.runAt !== undefined ? null : (input.cron ?? old.cron),
    timeZone: input.timeZone ?? old.timeZone,
    runAt: input.cron !== undefined ? null : input.runAt !== undefined ? new Date(input.runAt) : old.runAt,
  };
  if (retimed) checkTiming(timing, env.SCHEDULE_MIN_INTERVAL_SECONDS);
  const paused = input.paused ?? old.pausedAt !== null;
  const row = await updateSchedule(
    {
      id: input.id,
      userId: input.userId,
      name: input.name === undefined ? undefined : input.name || null,
      message: input.message,
      ...timing,
      paused,
      nextRunAt: nextAfterChange(old, timing, { paused, retimed, newRunAt: input.runAt !== undefined }),
    },
    db,
  );
  if (!row) throw notFound(input.id);
  return scheduleView(row);
}

export async function deleteOwnSchedule(scope: ScheduleScope & { id: string }, db?: Db): Promise<void> {
  if (!(await deleteSchedule(scoped(scope), db))) throw notFound(scope.id);
}
