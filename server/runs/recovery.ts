import "server-only";
import { createEventSequenceGuard, type RunCloseOutcome } from "../protocols/ag-ui/event-guard";
import { serializeEvent } from "../protocols/ag-ui/sse";
import { env } from "../env";
import { logger } from "../logger";
import { finishRun } from "../repositories/run-messages";
import { findAbandonedRuns, findStaleRun } from "../repositories/runs";
import { readEvents } from "./event-log";
import { getLiveRun } from "./live-runs";
import { HEARTBEAT_MS } from "./types";
import { parseAgUiEvent } from "../protocols/ag-ui/events";

// A run whose executor missed three heartbeats in a row is taken for abandoned: its process
// died, was killed, or lost the database for that long.
export const STALE_AFTER_MS = 3 * HEARTBEAT_MS;
const SWEEP_EVERY_MS = HEARTBEAT_MS;

export const EXECUTOR_LOST = {
  type: "error",
  code: "EXECUTOR_LOST",
  message: "The process running this run stopped reporting before the run finished (it crashed, was stopped, or lost its database)",
} as const satisfies RunCloseOutcome;

/**
 * Ends a run whose executor is gone: replays its persisted events through the sequence
 * guard, then closes the run and appends the closing events (ends for whatever was open, then
 * the terminal one) in one statement. Nothing already written is touched, and the closing events
 * follow the log's last event, so no id a client saw is ever reused.
 */
export async function closeAbandonedRun(run: { id: string; runId: string; threadId: string }, outcome: RunCloseOutcome): Promise<void> {
  if (getLiveRun(run.id)) return;
  const guard = createEventSequenceGuard({ threadId: run.threadId, runId: run.runId });
  let after = 0;
  for (;;) {
    const page = await readEvents({ runId: run.id, after, limit: 1000 });
    for (const rec of page) {
      try {
        guard.accept(parseAgUiEvent(JSON.parse(rec.json)));
      } catch {
        // A log the guard cannot follow still gets its terminal event below.
      }
      after = rec.seq;
    }
    if (page.length < 1000) break;
  }
  if (guard.status === "finished" || guard.status === "errored") {
    await finishRun({ threadId: run.threadId, runId: run.id, messages: [], end: { status: guard.status === "finished" ? "completed" : "failed" } });
    return;
  }
  const closing = guard.close(outcome);
  await finishRun({
    threadId: run.threadId,
    runId: run.id,
    messages: [],
    end: {
      status: outcome.type === "cancelled" ? "cancelled" : "failed",
      errorCode: outcome.type === "error" ? outcome.code ?? "ABANDONED" : null,
      errorMessage: outcome.type === "error" ? outcome.message : null,
    },
    closing: { firstSeq: after + 1, types: closing.map((e) => e.type), events: closing.map((e) => serializeEvent(e)) },
  });
}

/**
 * Closes the user's run `runId` when its executor stopped reporting (a new run on its thread
 * supersedes it rather than waiting for the sweeper); true when it was closed.
 */
export async function closeIfAbandoned({ userId, runId }: { userId: string; runId: string }): Promise<boolean> {
  const run = await findStaleRun({ userId, runId, staleBefore: new Date(Date.now() - STALE_AFTER_MS) });
  if (!run || getLiveRun(run.id)) return false;
  await closeAbandonedRun(run, EXECUTOR_LOST);
  return true;
}

/** Closes, as failed, the runs whose executors stopped reporting. */
export async function recoverAbandonedRuns(): Promise<number> {
  const abandoned = await findAbandonedRuns({ staleBefore: new Date(Date.now() - STALE_AFTER_MS) });
  for (const run of abandoned) {
    try {
      await closeAbandonedRun(run, EXECUTOR_LOST);
    } catch (err) {
      logger.error({ err, runId: run.id }, "could not close an abandoned run");
    }
  }
  if (abandoned.length > 0) logger.warn({ count: abandoned.length }, "closed runs whose executors stopped reporting");
  return abandoned.length;
}

let sweeper: NodeJS.Timeout | null = null;

/**
 * At start-up and then every heartbeat: a crashed instance's runs are closed within seconds. Not on
 * Vercel, where timers run only while a request is served: Vercel Cron calls recoverAbandonedRuns
 * there (server/services/scheduled-duties.ts).
 */
export function startRecoverySweeper(): void {
  if (sweeper || env.VERCEL) return;
  const sweep = () => void recoverAbandonedRuns().catch((err: unknown) => logger.warn({ err }, "run recovery sweep failed"));
  sweep();
  sweeper = setInterval(sweep, SWEEP_EVERY_MS);
  sweeper.unref();
}
