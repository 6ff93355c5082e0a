import "server-only";
import { EventType } from "@ag-ui/core";
import { logger } from "../logger";
import { createEventSequenceGuard, type EventSequenceGuard } from "../protocols/ag-ui/event-guard";
import { parseAgUiEvent, type AgUiEvent } from "../protocols/ag-ui/events";
import type { RunAgentInput } from "../protocols/ag-ui/run-input";
import { serializeEvent } from "../protocols/ag-ui/sse";
import { listen } from "./repository/notifications";
import { appendRunMessages, type RunEnd } from "./repository/run-messages";
import { heartbeatRuns, markRunStarted, releaseRun } from "./repository/runs";
import { endRunAttempt } from "./repository/run-attempts";
import { INSTANCE_ID } from "../lib/instance-id";
import { meterRun } from "../telemetry/run-meter";
import { reachingDatabase } from "./database-reach";
import { discardUnwrittenEvents, flushEvents, onRunClosedElsewhere } from "./event-log";
import { requestContinuation } from "./continuation";
import { handOffAt } from "./function-limits";
import { closeLiveRun, getLiveRun, openLiveRun } from "./live-runs";
import { failureOf, withFinalWriteRetries, writeRunEnd, type ExecutionEnd } from "./close-run";
import type { AbortReason, Execution } from "./execution";
import { MessageRecorder } from "./message-recorder";
import { RunStateKeeper } from "./state-keeper";
import { openingEvents, wireThreadId, type Opening } from "./opening";
import { findRunner } from "./runners/registry";
import { HEARTBEAT_MS, RunnerFailure, type EventRecord, type GenerationParams, type PrefetchedContext, type RunHandle, type Runner, type RunnerInput } from "../kernel/runs";

export const RUN_CANCEL_CHANNEL = "dispatch_run_cancel";

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


/**
 * Opens the execution: its live log, guard and recorder. A takeover replays the log it inherits
 * and closes what was left open (the runner then resumes from it); opening events the accepting
 * statement wrote are durable already, so followers get them at once.
 */
function beginExecution(run: RunHandle, input: RunAgentInput, runner: Runner, from: Takeover | Opened | undefined): { ex: Execution; resume: RunnerInput["resume"] } {
  const attempt = run.attempt ?? 1;
  const controller = new AbortController();
  executions.set(run.id, { controller, attempt });
  if (handingOff) controller.abort("handed_off" satisfies AbortReason);
  const ex: Execution = {
    run,
    attempt,
    live: openLiveRun(run.id, attempt),
    controller,
    recorder: new MessageRecorder(run, Date.now()),
    guard: createEventSequenceGuard({ threadId: wireThreadId(run, input), runId: run.runId }),
    meter: meterRun({ ...run, runner: runner.id }),
    toolCalls: 0,
    state: new RunStateKeeper(run, input.stateFromThread === true),
    append(accepted, extras) {
      ex.meter.event(accepted);
      ex.state.observe(accepted);
      if (accepted.type === EventType.TOOL_CALL_START) ex.toolCalls++;
      ex.live.append(accepted.type, serializeEvent(accepted));
      ex.recorder.observe(accepted, extras);
    },
    put(event, extras) {
      if (extras?.answersEarlierCall && event.type === EventType.TOOL_CALL_RESULT) ex.guard.adoptToolCall(event.toolCallId);
      ex.append(ex.guard.accept(event), extras);
    },
  };
  if (from && "records" in from) {
    ex.live.preload(from.records);
    const events = replay(ex.guard, from.records);
    for (const e of events) ex.state.observe(e);
    const interrupted = ex.guard.closeOpen();
    const resume = {
      events,
      interruptedToolCalls: interrupted.flatMap((e) => (e.type === EventType.TOOL_CALL_END ? [e.toolCallId] : [])),
      unansweredToolCalls: ex.guard.unansweredToolCalls(),
    };
    for (const e of interrupted) ex.append(e);
    return { ex, resume };
  }
  if (from && "opened" in from) {
    ex.live.preload(from.opened.records, { hurryNext: false });
    for (const event of from.opened.events) {
      const accepted = ex.guard.accept(event);
      ex.meter.event(accepted);
      ex.state.observe(accepted);
      ex.recorder.observe(accepted);
    }
  }
  return { ex, resume: undefined };
}

/**
 * The run's deadline, and on Vercel the hand-back before this invocation's limit: a run whose
 * deadline is beyond it goes on in a new invocation (continuation.ts). Only an in-process runner
 * can go on with a run (an external runner cannot resume one: docs/durable-runs.md), so an
 * external runner's run ends there as at its deadline, its end written, rather than being cut off.
 */
function armTimers(run: RunHandle, runner: Runner, controller: AbortController): { clear(): void; leftInvocation(): boolean } {
  const leaveAt = handOffAt();
  const resumable = findRunner(runner.id) === runner;
  const endsAt = leaveAt !== null && !resumable ? Math.min(leaveAt, run.deadlineAt.getTime()) : run.deadlineAt.getTime();
  const deadline = setTimeout(() => controller.abort("deadline" satisfies AbortReason), Math.max(0, endsAt - Date.now()));
  let left = false;
  const invocationEnd =
    leaveAt !== null && resumable && leaveAt < run.deadlineAt.getTime()
      ? setTimeout(() => {
          left = !controller.signal.aborted;
          controller.abort("handed_off" satisfies AbortReason);
        }, leaveAt - Date.now())
      : undefined;
  return {
    clear: () => {
      clearTimeout(deadline);
      clearTimeout(invocationEnd);
    },
    leftInvocation: () => left,
  };
}

/** Runs the runner to its end; what it answered, or why it failed, never thrown. */
async function runTheRunner(
  ex: Execution,
  runner: Runner,
  call: { input: RunAgentInput; generation: GenerationParams; prefetched: PrefetchedContext | undefined; resume: RunnerInput["resume"]; openedAlready: boolean },
): Promise<ExecutionEnd> {
  const { run, controller } = ex;
  let spent: ExecutionEnd["spent"] = {};
  try {
    if (!call.openedAlready) for (const event of openingEvents(run, call.input)) ex.put(event);
    // The statement that made the run running for this execution (its accept, its queued start,
    // a takeover's claim) recorded the attempt; a run handed over still queued is started here.
    if (run.status !== "running") await markRunStarted({ id: run.id, attempt: ex.attempt, instance: INSTANCE_ID });
    const result = await ex.meter.within(() =>
      runner.run({
        run,
        input: call.input,
        generation: call.generation,
        prefetched: call.prefetched,
        resume: call.resume,
        reportUsage: (usage, model) => (spent = { usage, model }),
        signal: controller.signal,
        emit: (event, extras) => {
          if (controller.signal.aborted) return;
          ex.put(event, extras);
        },
      }),
    );
    return { result, failure: controller.signal.aborted ? failureOf(null, controller.signal.reason as AbortReason) : null, spent };
  } catch (err) {
    const reason = controller.signal.aborted ? (controller.signal.reason as AbortReason) : undefined;
    if (!reason && !(err instanceof RunnerFailure)) logger.error({ err, runId: run.id }, "run failed");
    return { result: {}, failure: failureOf(err, reason), spent };
  }
}

/** Leaves the run to the instance (or the invocation) that goes on with it. */
async function leaveHandedBack(ex: Execution, leftInvocation: boolean): Promise<void> {
  const { run } = ex;
  await handBack(run, ex.attempt, ex.recorder);
  executions.delete(run.id);
  closeLiveRun(run.id);
  ex.meter.end({ status: "handed_off" });
  // Asked once the run is released and gone from here, so this instance may take it too.
  if (leftInvocation) await requestContinuation(run.id);
}

/**
 * Leaves a run closed elsewhere: its log ends with the terminal event that closed it, so nothing of
 * this executor's follows it, in the log or the thread. Followers here see their streams close.
 */
async function leaveClosedElsewhere(ex: Execution): Promise<void> {
  const { run } = ex;
  discardUnwrittenEvents(run.id);
  executions.delete(run.id);
  closeLiveRun(run.id);
  ex.meter.end({ status: "closed_elsewhere" });
  await ex.recorder.unwritten();
  await endRunAttempt({ id: run.id, attempt: ex.attempt, reason: "closed_elsewhere" }).catch((err: unknown) => logger.warn({ err, runId: run.id }, "could not record the end of a run's attempt"));
}

async function execute(
  run: RunHandle,
  input: RunAgentInput,
  runner: Runner,
  generation: GenerationParams,
  prefetched: PrefetchedContext | undefined,
  from: Takeover | Opened | undefined,
): Promise<void> {
  startBackgroundDuties();
  const { ex, resume } = beginExecution(run, input, runner, from);
  const timers = armTimers(run, runner, ex.controller);
  let end: ExecutionEnd;
  try {
    end = await runTheRunner(ex, runner, { input, generation, prefetched, resume, openedAlready: from !== undefined });
  } finally {
    timers.clear();
  }
  if (ex.controller.signal.reason === "handed_off") return leaveHandedBack(ex, timers.leftInvocation());
  if (ex.controller.signal.reason === "closed_elsewhere") return leaveClosedElsewhere(ex);
  let ending: RunEnd | null = null;
  try {
    await writeRunEnd(ex, end, (decided) => (ending = decided));
  } catch (err) {
    discardUnwrittenEvents(run.id);
    logger.error({ err, runId: run.id }, "could not close a run: the database did not take its end in time; recovery will close it");
  } finally {
    executions.delete(run.id);
    closeLiveRun(run.id);
    ex.meter.end(ending ?? { status: "failed" });
  }
}
