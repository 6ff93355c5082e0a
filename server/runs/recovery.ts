import "server-only";
import { createEventSequenceGuard, type RunCloseOutcome } from "../protocols/ag-ui/event-guard";
import { serializeEvent } from "../protocols/ag-ui/sse";
import { env } from "../env";
import { INSTANCE_ID } from "../lib/instance-id";
import { logger } from "../logger";
import { finishRun } from "./repository/run-messages";
import type { AttemptEnd } from "./repository/run-attempts";
import { listen } from "./repository/notifications";
import { claimAbandonedRun, findAbandonedRuns, findStaleRun, RUN_RELEASED_CHANNEL, type ClaimedRun } from "./repository/runs";
import type { RunAgentInput } from "../protocols/ag-ui/run-input";
import { readEvents } from "./event-log";
import { executeRun, isHandingOff } from "./execute";
import { getLiveRun } from "./live-runs";
import { findRunner } from "./runners/registry";
import { HEARTBEAT_MS, type EventRecord, type GenerationParams } from "../kernel/runs";
import { parseAgUiEvent } from "../protocols/ag-ui/events";

// A run whose executor missed three heartbeats in a row is taken for abandoned: its process
// died, was killed, or lost the database for that long. Another instance then takes it over and
// the run goes on from its log; a run whose runner cannot go on that way is closed instead.
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
export async function closeAbandonedRun(
  run: { id: string; runId: string; threadId: string; attempt?: number },
  outcome: RunCloseOutcome,
  log?: EventRecord[],
  /** Why its open execution ends: it stopped reporting (lease_expired), or it is the caller's own claim (finished). */
  attemptEnd: AttemptEnd = "lease_expired",
): Promise<void> {
  if (getLiveRun(run.id)) return;
  const records = log ?? (await readWholeLog(run.id));
  // The log's RUN_STARTED names the thread as its client did (opening.ts): the guard follows it.
  const guard = createEventSequenceGuard(records.length > 0 ? { runId: run.runId } : { threadId: run.threadId, runId: run.runId });
  for (const rec of records) {
    try {
      guard.accept(parseAgUiEvent(JSON.parse(rec.json)));
    } catch {
      // A log the guard cannot follow still gets its terminal event below.
    }
  }
  const after = records.at(-1)?.seq ?? 0;
  const { attempt } = run;
  if (guard.status === "finished" || guard.status === "errored") {
    await finishRun({ threadId: run.threadId, runId: run.id, messages: [], end: { status: guard.status === "finished" ? "completed" : "failed" }, attempt, attemptEnd });
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
    attempt,
    attemptEnd,
  });
}

async function readWholeLog(runId: string): Promise<EventRecord[]> {
  const records: EventRecord[] = [];
  for (;;) {
    const page = await readEvents({ runId, after: records.at(-1)?.seq ?? 0, limit: 1000 });
    records.push(...page);
    if (page.length < 1000) return records;
  }
}

/** Keeps a run's execution alive after the request that started it is answered (a Vercel invocation's waitUntil). */
export type KeepExecuting = (execution: Promise<unknown>) => void;

/**
 * Takes over a run whose executor stopped reporting (or handed it back) and goes on with it here,
 * from its log: the same runner continues from its last completed step (see RunnerInput.resume).
 * A run whose runner is not in this process (an external runner's) is closed as EXECUTOR_LOST.
 * Resolves once the run is claimed, with whether it was; its execution goes on in the background,
 * handed to `keepExecuting` when the caller is an invocation that must outlive its answer.
 */
export async function takeOverAbandonedRun(id: string, staleBefore: Date, keepExecuting?: KeepExecuting): Promise<boolean> {
  // Still executing here: its heartbeat lapsed while this instance lost the database, and resumes
  // with it. Claiming it would leave it to nobody (the execution here would stop as closed elsewhere).
  if (getLiveRun(id)) return false;
  const claimed = await claimAbandonedRun({ id, staleBefore, instance: INSTANCE_ID });
  if (!claimed) return false;
  const records = await readWholeLog(claimed.id);
  const runner = findRunner(claimed.runner);
  if (claimed.cancelRequested) {
    await closeAbandonedRun(claimed, { type: "cancelled" }, records, "finished");
    return true;
  }
  // An external runner's run: see docs/durable-runs.md for why it is not re-invoked.
  if (!runner) {
    await closeAbandonedRun(claimed, EXECUTOR_LOST, records, "finished");
    return true;
  }
  logger.warn({ runId: claimed.id, attempt: claimed.attempt, events: records.length }, "taking over a run whose executor stopped reporting or handed it back");
  const execution = executeRun(handleOf(claimed), claimed.input as RunAgentInput, runner, (claimed.generation ?? {}) as GenerationParams, undefined, records.length > 0 ? { records } : undefined).catch(
    (err: unknown) => logger.error({ err, runId: claimed.id }, "a run taken over failed to execute"),
  );
  keepExecuting?.(execution);
  return true;
}

function handleOf(run: ClaimedRun) {
  return {
    id: run.id,
    runId: run.runId,
    threadId: run.threadId,
    userId: run.userId,
    protocol: run.protocol,
    deadlineAt: new Date(run.deadlineAt),
    createdAt: new Date(run.createdAt),
    status: "running" as const,
    apiKeyHash: run.apiKeyHash,
    attempt: run.attempt,
    traceParent: run.traceParent,
    traceState: run.traceState,
  };
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

/**
 * Takes over (or, when their runner cannot go on, closes) the runs whose executors stopped
 * reporting or handed them back, or only run `runId` (a continuation asked for it); answers how many.
 */
export async function recoverAbandonedRuns(opts: { runId?: string; keepExecuting?: KeepExecuting } = {}): Promise<number> {
  if (isHandingOff()) return 0;
  const staleBefore = new Date(Date.now() - STALE_AFTER_MS);
  const abandoned = opts.runId ? [{ id: opts.runId }] : await findAbandonedRuns({ staleBefore });
  let taken = 0;
  for (const run of abandoned) {
    try {
      if (await takeOverAbandonedRun(run.id, staleBefore, opts.keepExecuting)) taken++;
    } catch (err) {
      logger.error({ err, runId: run.id }, "could not take over an abandoned run");
    }
  }
  return taken;
}

let sweeper: NodeJS.Timeout | null = null;

/**
 * At start-up and then every heartbeat: a crashed instance's runs are closed within seconds. Not on
 * Vercel, where timers run only while a request is served: Vercel Cron calls recoverAbandonedRuns
 * there (server/operations/service/scheduled-duties.ts).
 */
export function startRecoverySweeper(): void {
  if (sweeper || env.VERCEL) return;
  const sweep = () => void recoverAbandonedRuns().catch((err: unknown) => logger.warn({ err }, "run recovery sweep failed"));
  sweep();
  sweeper = setInterval(sweep, SWEEP_EVERY_MS);
  sweeper.unref();
  // A stopping instance hands its runs back: take them over now rather than at the next sweep.
  void listen(RUN_RELEASED_CHANNEL, (id) => {
    if (isHandingOff()) return;
    // A released run has no heartbeat; a run another instance already claimed has a fresh one.
    void takeOverAbandonedRun(id, new Date(Date.now() - STALE_AFTER_MS)).catch((err: unknown) => logger.warn({ err, runId: id }, "could not take over a run handed back"));
  }).catch((err: unknown) => logger.warn({ err }, "could not listen for runs handed back; the sweep takes them over"));
}

/** The server is stopping: no more sweeps (one would reopen the database pool it has closed). */
export function stopRecoverySweeper(): void {
  if (sweeper) clearInterval(sweeper);
  sweeper = null;
}
