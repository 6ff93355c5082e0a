import "server-only";
import { createHash } from "node:crypto";
import { AppError, isDatabaseUnavailable } from "../kernel/errors";
import { logger } from "../logger";
import { parseRunAgentInput } from "../protocols/ag-ui/run-input";
import { SCHEDULER_SOURCE } from "../protocols/runner/context";
import { startRun, type KeepAlive } from "../runs/service/runs";
import { getThread } from "../threads/service/thread-api";
import { changeOwnSchedule, createOwnSchedule, deleteOwnSchedule, getOwnSchedule, listOwnSchedules } from "./manage";
import { advanceSchedule, findFiring, requeueOverdueSchedules, type ScheduleRow, type ScheduleScope } from "./repository";
import type { CreateSchedule, ScheduleView, UpdateSchedule } from "./schemas";
import { nextDue } from "./times";

// Scheduled runs (docs/schedules.md). Owners (a user in the chat, an API key's user over REST, an
// admin in the console for anyone's) keep their schedules through manage.ts; firing is here: each
// due time is a graphile-worker job (server/queue/worker.ts), and on Vercel the fire-schedules duty
// takes the due ones.

export { SCHEDULE_FIRE_TASK } from "./repository";

/** Makes a schedule; a thread it names must be the caller's (400 otherwise, as for any bad field). */
export async function createSchedule(input: CreateSchedule & { userId: string; via: "session" | "api_key" }): Promise<ScheduleView> {
  if (input.threadId) {
    await getThread({ userId: input.userId, id: input.threadId }).catch((err: unknown) => {
      if (err instanceof AppError && err.code === "NOT_FOUND") throw new AppError("BAD_REQUEST", `threadId: you have no thread ${input.threadId}`, { field: "threadId" });
      throw err;
    });
  }
  return createOwnSchedule(input);
}

export const listSchedules = (scope: ScheduleScope) => listOwnSchedules(scope);
export const getSchedule = (scope: ScheduleScope & { id: string }) => getOwnSchedule(scope);
export const updateSchedule = (input: ScheduleScope & UpdateSchedule & { id: string }) => changeOwnSchedule(input);
export const deleteSchedule = (scope: ScheduleScope & { id: string }) => deleteOwnSchedule(scope);

export { listEverySchedule } from "./manage";

/** A UUID that is the same for the same schedule, due time and purpose: a retried firing names the same thread and run. */
function occurrenceId(scheduleId: string, due: Date, purpose: "thread" | "run" | "message"): string {
  const hex = createHash("sha256").update(`${scheduleId}:${due.getTime()}:${purpose}`).digest("hex");
  // Shaped as an RFC 9562 version 8 (custom) UUID.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Starts the run of `due`: idempotent by its runId, so a firing retried after a crash finds the run it started. */
async function startOccurrence(s: ScheduleRow, due: Date, keepAlive?: KeepAlive): Promise<{ runId: string; threadId: string }> {
  const threadId = s.threadId ?? occurrenceId(s.id, due, "thread");
  const runId = occurrenceId(s.id, due, "run");
  // The agent reads "today" and "this week" in the schedule's zone.
  const forwardedProps = { timeZone: s.timeZone };
  const body = { threadId, runId, messages: [{ id: occurrenceId(s.id, due, "message"), role: "user", content: s.message }], tools: [], context: [], forwardedProps };
  const parsed = parseRunAgentInput(JSON.stringify(body));
  if (!parsed.ok) throw new AppError("BAD_REQUEST", parsed.message);
  // On the owner's own thread a run in progress is waited for, not refused.
  await startRun({ userId: s.userId, input: parsed.input, protocol: SCHEDULER_SOURCE, keepAlive, multitaskStrategy: s.threadId ? "enqueue" : undefined });
  return { runId, threadId };
}

/** How late a due time may be and still fire: one later than this when its turn comes is skipped. */
const CATCH_UP_MS = 60_000;

/**
 * The due time after `due`: the next in line while it is recent (a busy queue, an instance that
 * restarted within a minute), else the first after now, so times missed while down are skipped.
 */
function followingDue(s: ScheduleRow, due: Date, now: Date): Date | null {
  const next = nextDue(s, due, true);
  return next && next.getTime() < now.getTime() - CATCH_UP_MS ? nextDue(s, now, true) : next;
}

/**
 * Fires schedule `id` for its due time `due` (its job's), once: when `due` is still the
 * schedule's next due time, it starts the run and moves the schedule to the following one. The
 * oldest due time missed while no instance ran fires late, once; the times between, older than
 * CATCH_UP_MS, are skipped. A run that cannot start (its thread gone, its runner unregistered) is recorded as the
 * schedule's last error and the schedule goes on; a database outage is thrown, so the job is
 * retried and finds the run it may have started. Answers whether a run started.
 */
export async function fireSchedule(job: { id: string; due: Date }, keepAlive?: KeepAlive): Promise<boolean> {
  const s = await findFiring(job);
  if (!s) return false;
  let started: { runId: string; threadId: string } | null = null;
  let error: string | null = null;
  try {
    started = await startOccurrence(s, job.due, keepAlive);
  } catch (err) {
    if (!(err instanceof AppError) || isDatabaseUnavailable(err)) throw err;
    error = err.message;
    logger.warn({ scheduleId: s.id, code: err.code }, "a schedule's run could not start");
  }
  const next = followingDue(s, job.due, new Date());
  await advanceSchedule({ id: s.id, due: job.due, next, runId: started?.runId ?? null, threadId: started?.threadId ?? null, error });
  return started !== null;
}

/** Gives an overdue schedule with no job (lost, or failed for good) a job again: the sweep's and the Vercel duty's first step. */
export async function requeueOverdue(graceMs: number): Promise<number> {
  return requeueOverdueSchedules({ graceMs, limit: 100 });
}
