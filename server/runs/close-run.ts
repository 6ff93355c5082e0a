import "server-only";
import { EventType } from "@ag-ui/core";
import { AppError } from "../kernel/errors";
import { logger } from "../logger";
import type { RunCloseOutcome } from "../protocols/ag-ui/event-guard";
import { serializeEvent } from "../protocols/ag-ui/sse";
import { finishRun, type RunEnd } from "./repository/run-messages";
import { dbSpan } from "../telemetry/tracing";
import { withRunUsage } from "../usage/token-usage";
import { announceDurable, flushEvents } from "./event-log";
import type { AbortReason, Execution } from "./execution";
import { RunnerFailure, type RunnerResult } from "../kernel/runs";

// The end of an execution: why it ended, and the one statement that closes the run with its last
// messages, status, usage and terminal events.

// How long a run keeps trying to write its end (its last messages, status and terminal event)
// while the database is unavailable, before it gives up: its followers' streams then close,
// and recovery closes the run from the log once it notices the missing heartbeat.
const FINAL_WRITE_BUDGET_MS = 30_000;

export async function withFinalWriteRetries(runId: string, write: () => Promise<void>): Promise<void> {
  const deadline = performance.now() + FINAL_WRITE_BUDGET_MS;
  let delay = 100;
  for (;;) {
    const left = deadline - performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        write(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error("the final write did not finish in time")), Math.max(0, left));
        }),
      ]);
      return;
    } catch (err) {
      if (performance.now() + delay >= deadline) throw err;
      logger.warn({ err, runId, retryInMs: delay }, "could not write a run's end; retrying");
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 5_000);
    } finally {
      clearTimeout(timer);
    }
  }
}

// The closing events that end a message the thread keeps (a stopped answer, its thinking, a call).
const CLOSED_MESSAGE_TYPES: ReadonlySet<string> = new Set([EventType.TEXT_MESSAGE_END, EventType.REASONING_MESSAGE_END, EventType.TOOL_CALL_END]);

export type Failure = { status: "failed" | "cancelled"; outcome: RunCloseOutcome; note?: { code: string; message: string } };

export function failureOf(err: unknown, reason: AbortReason | undefined): Failure {
  if (reason === "cancelled") return { status: "cancelled", outcome: { type: "cancelled" } };
  if (reason === "requester_gone") {
    return {
      status: "cancelled",
      outcome: { type: "cancelled" },
      note: { code: "REQUESTER_DISCONNECTED", message: "The client that started the run disconnected and nobody re-attached, so the run was stopped" },
    };
  }
  if (reason === "deadline") {
    return { status: "failed", outcome: { type: "error", code: "DEADLINE_EXCEEDED", message: "The run exceeded its deadline and was stopped" } };
  }
  if (err instanceof RunnerFailure) return { status: "failed", outcome: { type: "error", code: err.code, message: err.message || "The runner failed" } };
  if (err instanceof AppError && err.status < 500) return { status: "failed", outcome: { type: "error", code: err.code, message: err.message } };
  return { status: "failed", outcome: { type: "error", code: "RUNNER_ERROR", message: "The agent failed while running; see the run log" } };
}

/** What the runner left: its answer, or why it failed, and what it spent before a failure. */
export type ExecutionEnd = { result: RunnerResult; failure: Failure | null; spent: Pick<RunnerResult, "usage" | "model"> };

/**
 * Closes the run: the terminal events (carrying its token usage), its last messages and its status
 * in the statement that closes it, after everything before them is durable, so the run's status and
 * its log agree whenever the process stops. `decided` hears the end before it is written.
 */
export async function writeRunEnd(ex: Execution, { result, failure, spent }: ExecutionEnd, decided: (end: RunEnd) => void): Promise<void> {
  const { run, live, recorder, controller } = ex;
  const outcome: RunCloseOutcome =
    failure?.outcome ??
    (result.interrupts?.length ? { type: "interrupt", interrupts: result.interrupts } : { type: "success", ...(result.result !== undefined ? { result: result.result } : {}) });
  // A run that failed after spending tokens records what it reported so far.
  const usage = result.usage ?? (failure ? spent.usage : undefined);
  const model = result.model ?? (failure ? spent.model : undefined);
  const closing = withRunUsage(ex.guard.close(outcome), usage, model);
  // Messages closed by the terminal sequence (a cancelled answer) are recorded too.
  for (const e of closing) if (CLOSED_MESSAGE_TYPES.has(e.type)) recorder.observe(e);
  const records = closing.map((e) => live.reserve(e.type, serializeEvent(e)));
  const end: RunEnd = {
    status: failure?.status ?? "completed",
    errorCode: failure?.outcome.type === "error" ? failure.outcome.code ?? "RUNNER_ERROR" : failure?.note?.code ?? null,
    errorMessage: failure?.outcome.type === "error" ? failure.outcome.message : failure?.note?.message ?? null,
    usage: usage ?? null,
    model: model ?? null,
    toolCalls: ex.toolCalls,
  };
  const messages = [...(await recorder.unwritten()), ...(failure ? [] : (result.closingMessages ?? []))];
  let closedHere = false;
  // The run's end as decided, whether or not the statement below takes it.
  decided(end);
  // Inside the run's span: the closing statement's time shows in its trace.
  await ex.meter.within(() =>
    withFinalWriteRetries(run.id, async () => {
      await flushEvents();
      // Before the end is visible: a client's next run, started on RUN_FINISHED, continues from this state.
      await ex.state.save();
      ({ closed: closedHere } = await dbSpan("finish_run", () =>
        finishRun({
          threadId: run.threadId,
          runId: run.id,
          messages,
          end,
          closing: { firstSeq: records[0]!.seq, types: records.map((r) => r.type), events: records.map((r) => r.json) },
          attempt: ex.attempt,
          attemptEnd: controller.signal.reason === "deadline" ? "deadline" : "finished",
          notify: false,
        }),
      ));
    }),
  );
  // Closed elsewhere meanwhile: the log ends with that close, so these closing events go to nobody.
  if (closedHere) {
    live.publish(live.lastSeq);
    announceDurable(run.id, live.lastSeq);
  }
}
