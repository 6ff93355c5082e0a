import "server-only";
import { Logger, run, runOnce, type TaskList } from "graphile-worker";
import { env } from "../env";
import { logger } from "../logger";
import { idleWorker, stopWorker, type WorkerParts } from "./worker-parts";
import { openQueuePool, unlockStalledStartJobs } from "../runs/repository/run-queue";
import { startQueuedRun } from "../runs/service/queued-runs";
import { startWebhookWorker, stopWebhookWorker } from "./webhook-worker";
import { fireSchedule, requeueOverdue, SCHEDULE_FIRE_TASK } from "../schedules/service";
import type { KeepAlive } from "../runs/service/runs";

// graphile-worker runs the jobs of runs that wait their turn on a busy thread. The job is added
// parked by the run's accept (dispatch_accept_run) and made due when the thread's turn passes to
// the run (the dispatch_run_ended trigger, on whichever instance the run before it ended); it only
// starts the run, which then executes under our lease like any other, so the job is done in
// milliseconds and a worker slot is never held for a run's length.

/** The task name the SQL functions add jobs under. */
export const START_RUN_TASK = "dispatch_start_run";

/** A schedule's due time (server/schedules): starts its run and adds the job of the next one. */
function scheduleTasks(keepAlive?: KeepAlive, fired?: () => void): TaskList {
  return {
    [SCHEDULE_FIRE_TASK]: async (payload) => {
      const { id, due } = (payload ?? {}) as { id?: unknown; due?: unknown };
      if (typeof id !== "string" || typeof due !== "number") return;
      if (await fireSchedule({ id, due: new Date(due) }, keepAlive)) fired?.();
    },
  };
}

function taskList(opts: { awaitRun: boolean; started?: () => void }): TaskList {
  return {
    [START_RUN_TASK]: async (payload) => {
      const id = (payload as { id?: unknown } | null)?.id;
      if (typeof id !== "string") return;
      const execution = await startQueuedRun(id);
      if (!execution) return;
      opts.started?.();
      // Where nothing outlives the call (runOnce in a function), the run is executed before it returns.
      if (opts.awaitRun) await execution;
    },
  };
}

// graphile-worker reports every job it completes at info level: only its warnings and errors are ours to see.
export const queueLogger = new Logger(() => (level, message) => {
  if (level === "error") logger.error({ queue: true }, message);
  else if (level === "warning") logger.warn({ queue: true }, message);
});

// A job only starts its run, in milliseconds: one locked this long belongs to a worker that died
// between taking it and finishing it. Its run still waits (or, started, is our lease's business).
const STALLED_JOB_MS = 15_000;

const parts: WorkerParts = idleWorker();

/** Starts this instance's runner (off Vercel, from server/start-up.ts); a no-op with QUEUE_WORKER_CONCURRENCY=0. */
export async function startQueueWorker(): Promise<void> {
  await startWebhookWorker(queueLogger);
  if (parts.runner || env.QUEUE_WORKER_CONCURRENCY === 0) return;
  // Its workers, plus the LISTEN session and one for its bookkeeping.
  parts.pool = openQueuePool(env.QUEUE_WORKER_CONCURRENCY + 2);
  parts.runner = await run({
    pgPool: parts.pool,
    concurrency: env.QUEUE_WORKER_CONCURRENCY,
    pollInterval: env.QUEUE_POLL_INTERVAL_MS,
    noHandleSignals: true,
    logger: queueLogger,
    taskList: { ...taskList({ awaitRun: false }), ...scheduleTasks() },
  });
  parts.sweeper = setInterval(() => {
    void unlockStalledStartJobs({ task: START_RUN_TASK, olderThanMs: STALLED_JOB_MS }).catch((err: unknown) => logger.warn({ err }, "could not unlock stalled queue jobs"));
    // A schedule's firing is as quick (it starts a run), and idempotent: one locked this long died with its worker.
    void unlockStalledStartJobs({ task: SCHEDULE_FIRE_TASK, olderThanMs: STALLED_JOB_MS }).catch((err: unknown) => logger.warn({ err }, "could not unlock stalled schedule jobs"));
    void requeueOverdue(STALLED_JOB_MS).catch((err: unknown) => logger.warn({ err }, "could not requeue overdue schedules"));
  }, STALLED_JOB_MS);
  parts.sweeper.unref();
}

/**
 * Stops taking queued runs' jobs (SIGTERM, before the instance hands its runs back): a job
 * under way finishes starting its run, which is then handed back with the rest.
 */
export async function stopQueueWorker(): Promise<void> {
  await stopWebhookWorker();
  await stopWorker(parts, "queue worker");
}

/**
 * Starts every queued run whose turn has come, one at a time, and executes each before returning:
 * for a host with no long-lived worker (Vercel), called from a scheduled duty. Answers how many it started.
 */
export async function runQueuedRunsOnce(): Promise<number> {
  const once = openQueuePool(2);
  let started = 0;
  try {
    // A completion is flushed before runOnce returns only when it is batched (even by 0 ms);
    // otherwise a frozen function could leave its last job locked.
    await runOnce(
      { pgPool: once, noHandleSignals: true, logger: queueLogger, preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } } },
      taskList({ awaitRun: true, started: () => started++ }),
    );
  } finally {
    await once.end().catch(() => undefined);
  }
  return started;
}

/**
 * Fires every schedule whose due time came (and gives an overdue one without a job its job first):
 * for a host with no long-lived worker (Vercel), called by the fire-schedules duty; the runs they
 * start are handed to `keepAlive`. Answers how many runs it started.
 */
export async function fireSchedulesOnce(keepAlive: KeepAlive): Promise<number> {
  await requeueOverdue(0);
  const once = openQueuePool(2);
  let fired = 0;
  try {
    await runOnce(
      { pgPool: once, noHandleSignals: true, logger: queueLogger, preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } } },
      scheduleTasks(keepAlive, () => fired++),
    );
  } finally {
    await once.end().catch(() => undefined);
  }
  return fired;
}
