import "server-only";
import { notify } from "./repository/notifications";
import { requestRunCancel, type RunRow } from "./repository/runs";
import { isWaitingRun } from "./repository/run-queue";
import { abortLocalRun, RUN_CANCEL_CHANNEL } from "./execute";
import type { AbortReason } from "./execution";
import { lastPersistedSeq } from "./event-log";
import { closeAbandonedRun } from "./recovery";
import { followRunBatches } from "./subscribe";
import { TERMINAL_STATUSES } from "../kernel/runs";

/**
 * Stops a run wherever it executes: here directly, elsewhere through a notification to
 * the instance that owns it. A run nobody executes any more is closed as cancelled at once, and
 * so is one still waiting its turn on a busy thread: it never starts (its job goes with it, see
 * dispatch_run_ended), and its followers get RUN_STARTED then RUN_FINISHED (outcome cancelled).
 * Idempotent: cancelling an ended run changes nothing.
 */
export async function cancelRun(run: RunRow, reason: Extract<AbortReason, "cancelled" | "requester_gone"> = "cancelled"): Promise<void> {
  if (TERMINAL_STATUSES.has(run.status)) return;
  if (abortLocalRun(run.id, reason)) return;
  await requestRunCancel({ id: run.id });
  // From the request on, the run's job cannot start it (dispatch_start_queued_run): still waiting now means it never will.
  if (run.status === "queued" && (await isWaitingRun({ id: run.id }))) {
    await closeAbandonedRun(run, { type: "cancelled" });
    return;
  }
  await notify(RUN_CANCEL_CHANNEL, reason === "cancelled" ? run.id : `${run.id} ${reason}`);
  if (run.status === "queued" && Date.now() - run.createdAt.getTime() > 30_000) {
    await closeAbandonedRun(run, { type: "cancelled" });
  }
}

/**
 * Cancels a run and resolves once it has ended (its terminal event is in the log), or after
 * `withinMs`: a thread's new run that interrupts the one in progress starts only after it.
 */
export async function cancelAndWait(run: RunRow, withinMs: number): Promise<void> {
  if (TERMINAL_STATUSES.has(run.status)) return;
  const after = await lastPersistedSeq(run.id);
  await cancelRun(run);
  const signal = AbortSignal.timeout(withinMs);
  for await (const batch of followRunBatches({ runId: run.id, after, signal })) void batch;
}
