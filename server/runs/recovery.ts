import "server-only";
import { createEventSequenceGuard, type RunCloseOutcome } from "../protocols/ag-ui/event-guard";
import { serializeEvent } from "../protocols/ag-ui/sse";
import { logger } from "../logger";
import { finishRun } from "../repositories/run-messages";
import { findAbandonedRuns } from "../repositories/runs";
import { appendEvents, lastPersistedSeq, readEvents } from "./event-log";
import { getLiveRun } from "./live-runs";
import { parseAgUiEvent } from "../protocols/ag-ui/events";

const STALE_AFTER_MS = 45_000;

/**
 * Ends a run whose executor is gone: replays its persisted events through the sequence
 * guard, appends the closing events (ends for whatever was open, then the terminal one)
 * and sets its status. Nothing already written is touched.
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
  await appendEvents(run.id, await lastPersistedSeq(run.id), closing.map((e) => ({ type: e.type, json: serializeEvent(e) })));
  await finishRun({
    threadId: run.threadId,
    runId: run.id,
    messages: [],
    end: {
      status: outcome.type === "cancelled" ? "cancelled" : "failed",
      errorCode: outcome.type === "error" ? outcome.code ?? "ABANDONED" : null,
      errorMessage: outcome.type === "error" ? outcome.message : null,
    },
  });
}

/** Closes, as failed, the runs that servers which died left open. */
export async function recoverAbandonedRuns(): Promise<number> {
  const abandoned = await findAbandonedRuns({ staleBefore: new Date(Date.now() - STALE_AFTER_MS) });
  for (const run of abandoned) {
    try {
      await closeAbandonedRun(run, { type: "error", code: "SERVER_RESTARTED", message: "The server running this run stopped before it finished" });
    } catch (err) {
      logger.error({ err, runId: run.id }, "could not close an abandoned run");
    }
  }
  if (abandoned.length > 0) logger.warn({ count: abandoned.length }, "closed runs left open by a stopped server");
  return abandoned.length;
}

let sweeper: NodeJS.Timeout | null = null;

/** At start-up and then every minute: a crashed instance's runs do not stay open forever. */
export function startRecoverySweeper(): void {
  if (sweeper) return;
  const sweep = () => void recoverAbandonedRuns().catch((err: unknown) => logger.warn({ err }, "run recovery sweep failed"));
  sweep();
  sweeper = setInterval(sweep, 60_000);
  sweeper.unref();
}
