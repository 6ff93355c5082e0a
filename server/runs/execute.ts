import "server-only";
import { EventType } from "@ag-ui/core";
import { AppError } from "../errors";
import { logger } from "../logger";
import { createEventSequenceGuard, type EventSequenceGuard, type RunCloseOutcome } from "../protocols/ag-ui/event-guard";
import { parseAgUiEvent, type AgUiEvent } from "../protocols/ag-ui/events";
import type { RunAgentInput } from "../protocols/ag-ui/run-input";
import { serializeEvent } from "../protocols/ag-ui/sse";
import { listen } from "../repositories/notifications";
import { appendRunMessages, finishRun, type RunEnd } from "../repositories/run-messages";
import { heartbeatRuns, markRunStarted, releaseRun } from "../repositories/runs";
import { endRunAttempt } from "../repositories/run-attempts";
import { INSTANCE_ID } from "../lib/instance-id";
import { withRunUsage } from "../usage/token-usage";
import { meterRun } from "../telemetry/run-meter";
import { dbSpan } from "../telemetry/tracing";
import { reachingDatabase } from "./database-reach";
import { announceDurable, discardUnwrittenEvents, flushEvents, onRunClosedElsewhere } from "./event-log";
import { requestContinuation } from "./continuation";
import { handOffAt } from "./function-limits";
import { closeLiveRun, getLiveRun, openLiveRun } from "./live-runs";
import { MessageRecorder } from "./message-recorder";
import { openingEvents, wireThreadId, type Opening } from "./opening";
import { findRunner } from "./runners/registry";
import { HEARTBEAT_MS, RunnerFailure, type EmitExtras, type EventRecord, type GenerationParams, type PrefetchedContext, type RunHandle, type Runner, type RunnerInput, type RunnerResult } from "./types";

export const RUN_CANCEL_CHANNEL = "dispatch_run_cancel";

/**
 * Why a run was stopped: a cancel request, its deadline, its requester leaving (AG-UI's Stop),
 * the database saying it is closed or someone else's already (recovery on another instance), or
 * this instance stopping (the run is handed back, and another instance goes on with it).
 */
export type AbortReason = "cancelled" | "deadline" | "requester_gone" | "closed_elsewhere" | "handed_off";
const ABORT_REASONS: ReadonlySet<string> = new Set<AbortReason>(["cancelled", "deadline", "requester_gone"]);
/** The runs executing here: how to stop each, and which execution of it this is. */
const executions = new Map<string, { controller: AbortController; attempt: number }>();
const running = new Set<Promise<void>>();
// Set once this instance stops: a run it would start now goes straight to another instance.
let handingOff = false;

let heartbeat: NodeJS.Timeout | null = null;
let cancelListener: Promise<unknown> | null = null;

function startBackgroundDuties(): void {
  heartbeat ??= setInterval(() => {
    const runs = [...executions].map(([id, { attempt }]) => ({ id, attempt }));
    if (runs.length === 0) return;
    reachingDatabase(() => heartbeatRuns({ runs })).then(
      (open) => {
        const stillOpen = new Set(open.map((r) => r.id));
        for (const { id } of runs) if (!stillOpen.has(id)) stopRunClosedElsewhere(id);
        // A cancel whose notification never came (no LISTEN through a pooler, or a lost connection).
        for (const r of open) if (r.cancelRequested) abortLocalRun(r.id, "cancelled");
      },
      (err: unknown) => logger.warn({ err }, "run heartbeat failed"),
    );
  }, HEARTBEAT_MS);
  heartbeat.unref();
  // The payload is the run's id, then its reason after a space when it is not a plain cancel.
  cancelListener ??= listen(RUN_CANCEL_CHANNEL, (payload) => {
    const [id = "", reason = "cancelled"] = payload.split(" ");
    abortLocalRun(id, ABORT_REASONS.has(reason) ? (reason as AbortReason) : "cancelled");
  }).catch((err: unknown) => {
    cancelListener = null;
    logger.warn({ err }, "could not listen for cancel requests");
  });
}

/** A run executing here that the database says is closed (or taken over) stops spending model tokens on a log that takes no more events from it. */
function stopRunClosedElsewhere(id: string): void {
  if (abortLocalRun(id, "closed_elsewhere")) logger.warn({ runId: id }, "a run executing here was closed elsewhere; stopping it");
}

onRunClosedElsewhere(stopRunClosedElsewhere);

/** Aborts a run executing on this instance; false when it is not here. */
export function abortLocalRun(id: string, reason: AbortReason): boolean {
  const c = executions.get(id)?.controller;
  if (!c) return false;
  if (!c.signal.aborted) c.abort(reason);
  return true;
}

// How long a run keeps trying to write its end (its last messages, status and terminal event)
// while the database is unavailable, before it gives up: its followers' streams then close,
// and recovery closes the run from the log once it notices the missing heartbeat.
const FINAL_WRITE_BUDGET_MS = 30_000;

async function withFinalWriteRetries(runId: string, write: () => Promise<void>): Promise<void> {
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

type Failure = { status: "failed" | "cancelled"; outcome: RunCloseOutcome; note?: { code: string; message: string } };

function failureOf(err: unknown, reason: AbortReason | undefined): Failure {
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

/** The run's log so far, when this execution takes the run over from one that stopped reporting. */
export type Takeover = { records: EventRecord[] };
/** A run whose accepting statement wrote its opening events (opening.ts). */
export type Opened = { opened: Opening };

/** Replays a log through a fresh guard; events it cannot follow are skipped (the guard keeps what it could). */
function replay(guard: EventSequenceGuard, records: readonly EventRecord[]): AgUiEvent[] {
  const events: AgUiEvent[] = [];
  for (const rec of records) {
    try {
      events.push(guard.accept(parseAgUiEvent(JSON.parse(rec.json))));
    } catch {
      // An event the guard cannot follow is left where it is; the run goes on from the others.
    }
  }
  return events;
}

/**
 * Executes a run on this instance: RUN_STARTED, the runner's events (checked by the AG-UI
 * sequence guard, persisted in batches, fanned out live), then exactly one terminal event.
 * With `takeover`, an earlier execution stopped reporting: its log stays as it is, what it left
 * open is closed, and the runner goes on from the log (RunnerInput.resume). With `opened`, the
 * statement that accepted the run wrote its opening events (opening.ts). Resolves when the run
 * has ended and everything about it is durable.
 */
export function executeRun(
  run: RunHandle,
  input: RunAgentInput,
  runner: Runner,
  generation: GenerationParams = {},
  prefetched?: PrefetchedContext,
  from?: Takeover | Opened,
): Promise<void> {
  if (getLiveRun(run.id)) return Promise.resolve();
  const execution = execute(run, input, runner, generation, prefetched, from);
  running.add(execution);
  void execution.finally(() => running.delete(execution));
  return execution;
}

/** True once this instance hands its runs back: it takes no run over either. */
export function isHandingOff(): boolean {
  return handingOff;
}

/**
 * Stops executing runs here and hands each back, with everything it streamed durable, for
 * another instance to go on with (this instance is stopping: a deploy, a scale-down). Resolves
 * when every run is handed back, or after `withinMs`.
 */
export async function handOffRuns(withinMs: number): Promise<number> {
  handingOff = true;
  const count = executions.size;
  for (const id of executions.keys()) abortLocalRun(id, "handed_off");
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled([...running]), new Promise((r) => (timer = setTimeout(r, withinMs)))]);
  clearTimeout(timer);
  return count;
}

/** A run stopped by handOffRuns: its completed messages and events are written, then its hold released. */
async function handBack(run: RunHandle, attempt: number, recorder: MessageRecorder): Promise<void> {
  try {
    const messages = await recorder.unwritten();
    await withFinalWriteRetries(run.id, async () => {
      await flushEvents();
      await appendRunMessages({ threadId: run.threadId, runId: run.id, messages, attempt });
      await releaseRun({ id: run.id, attempt });
    });
    logger.info({ runId: run.id }, "handed a run back for another instance to go on with");
  } catch (err) {
    // Its heartbeat stops with this process: recovery takes it over all the same, a little later.
    logger.warn({ err, runId: run.id }, "could not hand a run back; another instance takes it over once its heartbeat is missed");
  }
}

async function execute(
  run: RunHandle,
  input: RunAgentInput,
  runner: Runner,
  generation: GenerationParams,
  prefetched: PrefetchedContext | undefined,
  from: Takeover | Opened | undefined,
): Promise<void> {
  const takeover = from && "records" in from ? from : undefined;
  const opened = from && "opened" in from ? from.opened : undefined;
  startBackgroundDuties();
  const attempt = run.attempt ?? 1;
  const live = openLiveRun(run.id, attempt);
  const controller = new AbortController();
  executions.set(run.id, { controller, attempt });
  if (handingOff) controller.abort("handed_off" satisfies AbortReason);
  const startedAt = Date.now();
  const recorder = new MessageRecorder(run, startedAt);
  const guard = createEventSequenceGuard({ threadId: wireThreadId(run, input), runId: run.runId });
  let toolCalls = 0;
  const meter = meterRun({ ...run, runner: runner.id });
  const append = (accepted: AgUiEvent, extras?: EmitExtras) => {
    meter.event(accepted);
    if (accepted.type === EventType.TOOL_CALL_START) toolCalls++;
    live.append(accepted.type, serializeEvent(accepted));
    recorder.observe(accepted, extras);
  };
  const put = (event: AgUiEvent, extras?: EmitExtras) => {
    if (extras?.answersEarlierCall && event.type === EventType.TOOL_CALL_RESULT) guard.adoptToolCall(event.toolCallId);
    append(guard.accept(event), extras);
  };
  let resume: RunnerInput["resume"];
  if (takeover) {
    live.preload(takeover.records);
    const events = replay(guard, takeover.records);
    const interrupted = guard.closeOpen();
    resume = {
      events,
      interruptedToolCalls: interrupted.flatMap((e) => (e.type === EventType.TOOL_CALL_END ? [e.toolCallId] : [])),
      unansweredToolCalls: guard.unansweredToolCalls(),
    };
    for (const e of interrupted) append(e);
  } else if (opened) {
    // Durable already: followers get them at once, and the runner's first event is not hurried.
    live.preload(opened.records, { hurryNext: false });
    for (const event of opened.events) {
      const accepted = guard.accept(event);
      meter.event(accepted);
      recorder.observe(accepted);
    }
  }
  // On Vercel, a run whose deadline is beyond this invocation's limit is handed back before that
  // limit, and goes on in a new invocation (continuation.ts). Only an in-process runner can go on
  // with a run (an external runner cannot resume one: docs/durable-runs.md), so an external
  // runner's run ends there as at its deadline, its end written, rather than being cut off.
  const leaveAt = handOffAt();
  const resumable = findRunner(runner.id) === runner;
  const endsAt = leaveAt !== null && !resumable ? Math.min(leaveAt, run.deadlineAt.getTime()) : run.deadlineAt.getTime();
  const deadline = setTimeout(() => controller.abort("deadline" satisfies AbortReason), Math.max(0, endsAt - Date.now()));
  let leftInvocation = false;
  const invocationEnd =
    leaveAt !== null && resumable && leaveAt < run.deadlineAt.getTime()
      ? setTimeout(() => {
          leftInvocation = !controller.signal.aborted;
          controller.abort("handed_off" satisfies AbortReason);
        }, leaveAt - Date.now())
      : undefined;

  let result: RunnerResult = {};
  let failure: Failure | null = null;
  let spent: Pick<RunnerResult, "usage" | "model"> = {};
  try {
    if (!takeover && !opened) for (const event of openingEvents(run, input)) put(event);
    // The statement that made the run running for this execution (its accept, its queued start,
    // a takeover's claim) recorded the attempt; a run handed over still queued is started here.
    if (run.status !== "running") await markRunStarted({ id: run.id, attempt, instance: INSTANCE_ID });
    result = await meter.within(() =>
      runner.run({
        run,
        input,
        generation,
        prefetched,
        resume,
        reportUsage: (usage, model) => (spent = { usage, model }),
        signal: controller.signal,
        emit: (event, extras) => {
          if (controller.signal.aborted) return;
          put(event, extras);
        },
      }),
    );
    if (controller.signal.aborted) failure = failureOf(null, controller.signal.reason as AbortReason);
  } catch (err) {
    const reason = controller.signal.aborted ? (controller.signal.reason as AbortReason) : undefined;
    failure = failureOf(err, reason);
    if (!reason && !(err instanceof RunnerFailure)) logger.error({ err, runId: run.id }, "run failed");
  } finally {
    clearTimeout(deadline);
    clearTimeout(invocationEnd);
  }

  if (controller.signal.reason === "handed_off") {
    await handBack(run, attempt, recorder);
    executions.delete(run.id);
    closeLiveRun(run.id);
    meter.end({ status: "handed_off" });
    // Asked once the run is released and gone from here, so this instance may take it too.
    if (leftInvocation) await requestContinuation(run.id);
    return;
  }

  if (controller.signal.reason === "closed_elsewhere") {
    // Its log ends with the terminal event that closed it: nothing of this executor's follows it,
    // in the log or the thread. Followers here see their streams close; a resume reads the log.
    discardUnwrittenEvents(run.id);
    executions.delete(run.id);
    closeLiveRun(run.id);
    meter.end({ status: "closed_elsewhere" });
    await recorder.unwritten();
    await endRunAttempt({ id: run.id, attempt, reason: "closed_elsewhere" }).catch((err: unknown) => logger.warn({ err, runId: run.id }, "could not record the end of a run's attempt"));
    return;
  }

  let ending: RunEnd | null = null;
  try {
    const outcome: RunCloseOutcome =
      failure?.outcome ??
      (result.interrupts?.length ? { type: "interrupt", interrupts: result.interrupts } : { type: "success", ...(result.result !== undefined ? { result: result.result } : {}) });
    // The terminal event carries the run's token usage (AG-UI's `usage`), as the ledger records it.
    // A run that failed after spending tokens records what it reported so far.
    const usage = result.usage ?? (failure ? spent.usage : undefined);
    const model = result.model ?? (failure ? spent.model : undefined);
    const closing = withRunUsage(guard.close(outcome), usage, model);
    // Messages closed by the terminal sequence (a cancelled answer) are recorded too.
    for (const e of closing) if (CLOSED_MESSAGE_TYPES.has(e.type)) recorder.observe(e);
    const records = closing.map((e) => live.reserve(e.type, serializeEvent(e)));
    const end: RunEnd = {
      status: failure?.status ?? "completed",
      errorCode: failure?.outcome.type === "error" ? failure.outcome.code ?? "RUNNER_ERROR" : failure?.note?.code ?? null,
      errorMessage: failure?.outcome.type === "error" ? failure.outcome.message : failure?.note?.message ?? null,
      usage: usage ?? null,
      model: model ?? null,
      toolCalls,
    };
    // The closing events go in the statement that closes the run, after everything before them
    // is durable: the run's status and its log agree, whenever the process stops.
    const messages = [...(await recorder.unwritten()), ...(failure ? [] : (result.closingMessages ?? []))];
    let closedHere = false;
    ending = end;
    // Inside the run's span: the closing statement's time shows in its trace.
    await meter.within(() => withFinalWriteRetries(run.id, async () => {
      await flushEvents();
      ({ closed: closedHere } = await dbSpan("finish_run", () => finishRun({
        threadId: run.threadId,
        runId: run.id,
        messages,
        end,
        closing: { firstSeq: records[0]!.seq, types: records.map((r) => r.type), events: records.map((r) => r.json) },
        attempt,
        attemptEnd: controller.signal.reason === "deadline" ? "deadline" : "finished",
        notify: false,
      })));
    }));
    // Closed elsewhere meanwhile: the log ends with that close, so these closing events go to nobody.
    if (closedHere) {
      live.publish(live.lastSeq);
      announceDurable(run.id, live.lastSeq);
    }
  } catch (err) {
    discardUnwrittenEvents(run.id);
    logger.error({ err, runId: run.id }, "could not close a run: the database did not take its end in time; recovery will close it");
  } finally {
    executions.delete(run.id);
    closeLiveRun(run.id);
    meter.end(ending ?? { status: "failed" });
  }
}
