import "server-only";
import { AppError } from "../../kernel/errors";
import { INSTANCE_ID } from "../../lib/instance-id";
import { logger } from "../../logger";
import { startQueuedRunRow } from "../repository/run-queue";
import { executeRun } from "../execute";
import { runHandle } from "../handle";
import { closeAbandonedRun } from "../recovery";
import { findRunner } from "../runners/registry";
import { planRun } from "../../runner-host/plan";
import type { RunAgentInput } from "../../protocols/ag-ui/run-input";
import type { GenerationParams } from "../../kernel/runs";
import { runnerFor } from "./runs";

type AttachmentRef = { bucket: string; path: string };

function attachmentRefs(stored: unknown): AttachmentRef[] {
  const list = Array.isArray(stored) ? stored : stored ? [stored] : [];
  return list.filter((r): r is AttachmentRef => !!r && typeof r === "object" && typeof r.bucket === "string" && typeof r.path === "string");
}

/**
 * Starts the run `id` that waited its turn on a busy thread, once its turn came (its
 * graphile-worker job runs, see server/queue/worker.ts): it becomes running here, its messages join
 * the thread, and it executes through the same path as a run started at once, so followers, the
 * event log, recovery and hand-off treat it like any other. Answers the execution (it settles when
 * the run ends), or null when the run waits no more (cancelled, already started).
 */
export async function startQueuedRun(id: string): Promise<Promise<void> | null> {
  const started = await startQueuedRunRow({ id, instance: INSTANCE_ID });
  if (!started) return null;
  const { run } = started;
  const input = started.input as RunAgentInput;
  // The built-in agent (or a test's stand-in) runs in-process; an external runner's plan is made
  // again, as its binding is now.
  const local = findRunner(started.runner) ?? null;
  let runner;
  try {
    const plan = local ? null : await planRun({ userId: run.userId, input, protocol: run.protocol, fresh: true });
    const via = started.apiKeyHash ? "api_key" : "session";
    runner = plan ? runnerFor(plan, null, { run, via, attachments: attachmentRefs(started.attachments), wireThreadId: input.threadName }) : local!;
  } catch (err) {
    // Its runner is gone (unregistered while it waited): the run ends failed now, and the thread's turn passes on.
    const outcome = err instanceof AppError
      ? { type: "error" as const, code: err.code, message: err.message }
      : { type: "error" as const, code: "RUNNER_UNAVAILABLE", message: "The run's runner could not be reached when its turn came" };
    logger.warn({ err, runId: run.id }, "a queued run could not start");
    await closeAbandonedRun({ id: run.id, runId: run.runId, threadId: run.threadId, attempt: started.attempt }, outcome);
    return null;
  }
  logger.info({ runId: run.id }, "a queued run's turn came: starting it");
  return executeRun(
    runHandle(run, { status: "running", apiKeyHash: started.apiKeyHash, attempt: started.attempt, traceParent: run.traceParent, traceState: run.traceState }),
    input,
    runner,
    (started.generation ?? {}) as GenerationParams,
  ).catch((err: unknown) => logger.error({ err, runId: run.id }, "a queued run's execution crashed"));
}
