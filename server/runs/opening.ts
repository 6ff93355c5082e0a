import "server-only";
import { EventType } from "@ag-ui/core";
import type { AgUiEvent } from "../protocols/ag-ui/events";
import type { RunAgentInput } from "../protocols/ag-ui/run-input";
import { sendsState } from "../protocols/ag-ui/state-rules";
import { serializeEvent } from "../protocols/ag-ui/sse";
import type { EventRecord } from "../kernel/runs";

// A run's opening events: RUN_STARTED, then the client's state when it sent one. They depend on
// nothing the execution does, so the statement that accepts a run started here writes them into
// the run's log (seq 1..n) in its own transaction: a client's first event waits for that one
// commit, not for it and then an event-log write. The execution replays the same events through
// its sequence guard and hands the records to its followers as already durable.

type OpeningInput = Pick<RunAgentInput, "parentRunId" | "state" | "threadName">;

/** The threadId a run's events carry: the client's name for the thread when it has one (RunAgentInput.threadName). */
export function wireThreadId(run: { threadId: string }, input: Pick<RunAgentInput, "threadName">): string {
  return input.threadName ?? run.threadId;
}

/** The events that open an execution of `run` for `input`, in order. */
export function openingEvents(run: { threadId: string; runId: string }, input: OpeningInput): AgUiEvent[] {
  const threadId = wireThreadId(run, input);
  const events: AgUiEvent[] = [{ type: EventType.RUN_STARTED, threadId, runId: run.runId, ...(input.parentRunId ? { parentRunId: input.parentRunId } : {}) }];
  if (sendsState(input.state)) events.push({ type: EventType.STATE_SNAPSHOT, snapshot: input.state });
  return events;
}

/** A run's opening events, and the same as the log stores them (from seq 1). */
export type Opening = { events: AgUiEvent[]; records: EventRecord[] };

export function opening(run: { threadId: string; runId: string }, input: OpeningInput): Opening {
  const events = openingEvents(run, input);
  return { events, records: events.map((event, i) => ({ seq: i + 1, type: event.type, json: serializeEvent(event) })) };
}
