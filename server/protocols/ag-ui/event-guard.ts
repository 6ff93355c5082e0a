import { firstIssue } from "../../kernel/input-issues";
import { EventType, type Interrupt } from "@ag-ui/core";
import { AgUiEventSchema, unknownEventFields, type AgUiEvent } from "./events";

// Every event of a run passes through this guard before it is persisted, so the log only
// ever holds sequences that @ag-ui/client's verifyEvents accepts. It is deliberately at
// least as strict as verifyEvents: on top of its rules it forbids empty deltas, reusing an
// id within a run, results for tool calls that never ended, and the shorthand CHUNK and
// SUBAGENT events (whose ownership rules no Dispatch producer needs yet), so every
// encoder downstream only has to handle explicit START/CONTENT/END triples.

export type RunCloseOutcome =
  | { type: "success"; result?: unknown }
  | { type: "cancelled" }
  /** The run waits for something outside it (a person's approval); a later run resumes it. */
  | { type: "interrupt"; interrupts: Interrupt[] }
  | { type: "error"; message: string; code?: string };

export type EventGuardStatus = "idle" | "running" | "finished" | "errored";

export interface EventSequenceGuard {
  readonly status: EventGuardStatus;
  /** Checks the event against the run so far and records it; throws EventSequenceError, changing nothing, when it does not fit. */
  accept(event: AgUiEvent): AgUiEvent;
  /**
   * Ends the run: the END events for whatever is still open (innermost first), then
   * RUN_FINISHED (success, cancelled) or RUN_ERROR. The returned events are already
   * accepted; the caller persists them in order. Empty when the run already ended.
   */
  close(outcome: RunCloseOutcome): AgUiEvent[];
  /**
   * Lets this run answer a tool call an earlier run of the thread made and left waiting (an
   * interrupt's call): its TOOL_CALL_RESULT is then accepted, once, as for a call of this run.
   */
  adoptToolCall(toolCallId: string): void;
  /**
   * The END events for whatever is still open (innermost first), already accepted, without ending
   * the run: an execution that took the run over closes what the one before it left half-streamed.
   */
  closeOpen(): AgUiEvent[];
  /** Tool calls that ended without a result, in the order they started. */
  unansweredToolCalls(): string[];
}

export type EventSequenceGuardOptions = {
  /** When given, RUN_STARTED must carry these, and close() can end a run that never started. */
  threadId?: string;
  runId?: string;
  now?: () => number;
};

export class EventSequenceError extends Error {
  readonly eventType: string;

  constructor(eventType: string, message: string) {
    super(`${eventType}: ${message}`);
    this.name = "EventSequenceError";
    this.eventType = eventType;
  }
}

type OpenKind = "text message" | "tool call" | "reasoning message" | "reasoning span" | "step";
type OpenEntity = { kind: OpenKind; id: string };

const UNSUPPORTED: ReadonlySet<EventType> = new Set([
  EventType.TEXT_MESSAGE_CHUNK,
  EventType.TOOL_CALL_CHUNK,
  EventType.REASONING_MESSAGE_CHUNK,
  EventType.SUBAGENT_STARTED,
  EventType.SUBAGENT_FINISHED,
  EventType.SUBAGENT_ERROR,
]);

function endEventFor(entity: OpenEntity, timestamp: number): AgUiEvent {
  switch (entity.kind) {
    case "text message":
      return { type: EventType.TEXT_MESSAGE_END, messageId: entity.id, timestamp };
    case "tool call":
      return { type: EventType.TOOL_CALL_END, toolCallId: entity.id, timestamp };
    case "reasoning message":
      return { type: EventType.REASONING_MESSAGE_END, messageId: entity.id, timestamp };
    case "reasoning span":
      return { type: EventType.REASONING_END, messageId: entity.id, timestamp };
    case "step":
      return { type: EventType.STEP_FINISHED, stepName: entity.id, timestamp };
  }
}

/** What the guard knows of the run so far. */
type GuardState = {
  status: EventGuardStatus;
  threadId: string | undefined;
  runId: string | undefined;
  open: OpenEntity[];
  // One namespace for every message the client will materialise (text, reasoning, tool
  // result, activity), so two events can never mint the same message.
  messageIds: Set<string>;
  assistantMessageIds: Set<string>;
  activityIds: Set<string>;
  spanIds: Set<string>;
  toolCalls: Map<string, "open" | "ended" | "answered">;
};

const isOpen = (state: GuardState, kind: OpenKind, id: string) => state.open.some((entity) => entity.kind === kind && entity.id === id);

function closeEntity(state: GuardState, kind: OpenKind, id: string): void {
  const index = state.open.findIndex((entity) => entity.kind === kind && entity.id === id);
  if (index >= 0) state.open.splice(index, 1);
}

/** The checks of one event's kind against the run so far; each throws through `fail`. */
type Rules = {
  fail: (message: string) => never;
  delta: (value: string) => void;
  newMessageId: (id: string) => void;
  mustBeOpen: (kind: OpenKind, id: string) => void;
};

function rulesFor(state: GuardState, type: string): Rules {
  const fail = (message: string): never => {
    throw new EventSequenceError(type, message);
  };
  return {
    fail,
    delta: (value) => {
      if (value.length === 0) fail("empty delta");
    },
    newMessageId: (id) => {
      if (state.messageIds.has(id)) fail(`message id '${id}' is already used in this run`);
    },
    mustBeOpen: (kind, id) => {
      if (!isOpen(state, kind, id)) fail(`no open ${kind} '${id}'`);
    },
  };
}

/** The event is valid AG-UI 1.0, of a kind Dispatch streams, and the run is still open for it. */
function checkEnvelope(state: GuardState, event: AgUiEvent, { fail }: Rules): void {
  const parsed = AgUiEventSchema.safeParse(event);
  if (!parsed.success) {
    const issue = firstIssue(parsed.error.issues);
    fail(`not a valid AG-UI 1.0 event (${issue?.field || "event"}: ${issue?.message})`);
  }
  const extra = unknownEventFields(event);
  if (extra.length > 0) fail(`unknown fields ${extra.join(", ")} would be dropped by AG-UI clients`);
  if (UNSUPPORTED.has(event.type)) fail("not supported: emit explicit START/CONTENT/END events without subagents");
  if ("subagentRunId" in event && event.subagentRunId !== undefined) fail("subagent attribution is not supported");
  if (state.status === "finished") fail("the run already finished with RUN_FINISHED");
  if (state.status === "errored") fail("the run already ended with RUN_ERROR");
  if (state.status === "idle" && event.type !== EventType.RUN_STARTED && event.type !== EventType.RUN_ERROR) {
    fail("the first event of a run must be RUN_STARTED");
  }
}

/** Run lifecycle and text messages. */
function checkRunAndText(state: GuardState, event: AgUiEvent, r: Rules): boolean {
  switch (event.type) {
    case EventType.RUN_STARTED:
      if (state.status !== "idle") r.fail("the run already started");
      if (state.threadId !== undefined && event.threadId !== state.threadId) r.fail(`threadId '${event.threadId}' is not this run's '${state.threadId}'`);
      if (state.runId !== undefined && event.runId !== state.runId) r.fail(`runId '${event.runId}' is not this run's '${state.runId}'`);
      return true;
    case EventType.RUN_FINISHED:
      if (state.open.length > 0) r.fail(`still open: ${state.open.map((entity) => `${entity.kind} '${entity.id}'`).join(", ")}`);
      if (event.threadId !== state.threadId || event.runId !== state.runId) r.fail("threadId and runId must match RUN_STARTED");
      return true;
    case EventType.TEXT_MESSAGE_START:
      r.newMessageId(event.messageId);
      return true;
    case EventType.TEXT_MESSAGE_CONTENT:
      r.mustBeOpen("text message", event.messageId);
      r.delta(event.delta);
      return true;
    case EventType.TEXT_MESSAGE_END:
      r.mustBeOpen("text message", event.messageId);
      return true;
    default:
      return false;
  }
}

/** Tool calls and their results. */
function checkToolCall(state: GuardState, event: AgUiEvent, r: Rules): boolean {
  switch (event.type) {
    case EventType.TOOL_CALL_START: {
      if (state.toolCalls.has(event.toolCallId)) r.fail(`tool call id '${event.toolCallId}' is already used in this run`);
      const parent = event.parentMessageId;
      if (parent !== undefined && state.messageIds.has(parent) && !state.assistantMessageIds.has(parent)) {
        r.fail(`parent message '${parent}' is not an assistant message`);
      }
      return true;
    }
    case EventType.TOOL_CALL_ARGS:
      r.mustBeOpen("tool call", event.toolCallId);
      r.delta(event.delta);
      return true;
    case EventType.TOOL_CALL_END:
      r.mustBeOpen("tool call", event.toolCallId);
      return true;
    case EventType.TOOL_CALL_RESULT: {
      const call = state.toolCalls.get(event.toolCallId);
      if (call === undefined) r.fail(`unknown tool call '${event.toolCallId}'`);
      if (call === "open") r.fail(`tool call '${event.toolCallId}' has not ended`);
      if (call === "answered") r.fail(`tool call '${event.toolCallId}' already has a result`);
      r.newMessageId(event.messageId);
      return true;
    }
    default:
      return false;
  }
}

/** Reasoning, steps and activities. */
function checkReasoningStepsActivities(state: GuardState, event: AgUiEvent, r: Rules): void {
  switch (event.type) {
    case EventType.REASONING_START:
      if (state.spanIds.has(event.messageId)) r.fail(`reasoning span id '${event.messageId}' is already used in this run`);
      return;
    case EventType.REASONING_END:
      r.mustBeOpen("reasoning span", event.messageId);
      return;
    case EventType.REASONING_MESSAGE_START:
      r.newMessageId(event.messageId);
      return;
    case EventType.REASONING_MESSAGE_CONTENT:
      r.mustBeOpen("reasoning message", event.messageId);
      r.delta(event.delta);
      return;
    case EventType.REASONING_MESSAGE_END:
      r.mustBeOpen("reasoning message", event.messageId);
      return;
    case EventType.REASONING_ENCRYPTED_VALUE: {
      const known = event.subtype === "tool-call" ? state.toolCalls.has(event.entityId) : state.messageIds.has(event.entityId);
      if (!known) r.fail(`unknown ${event.subtype} '${event.entityId}'`);
      return;
    }
    case EventType.STEP_STARTED:
      if (isOpen(state, "step", event.stepName)) r.fail(`step '${event.stepName}' is already active`);
      return;
    case EventType.STEP_FINISHED:
      r.mustBeOpen("step", event.stepName);
      return;
    case EventType.ACTIVITY_SNAPSHOT:
      if (!state.activityIds.has(event.messageId)) r.newMessageId(event.messageId);
      return;
    case EventType.ACTIVITY_DELTA:
      if (!state.activityIds.has(event.messageId)) r.fail(`unknown activity '${event.messageId}'`);
      return;
    default:
      return;
  }
}

/** Throws EventSequenceError, changing nothing, when the event does not fit the run so far. */
function checkEvent(state: GuardState, event: AgUiEvent): void {
  const rules = rulesFor(state, String((event as { type?: unknown }).type));
  checkEnvelope(state, event, rules);
  if (checkRunAndText(state, event, rules) || checkToolCall(state, event, rules)) return;
  checkReasoningStepsActivities(state, event, rules);
}

/** Records an accepted event: what it opens, closes, names or ends. */
function recordEvent(state: GuardState, event: AgUiEvent): void {
  switch (event.type) {
    case EventType.RUN_STARTED:
      state.status = "running";
      state.threadId = event.threadId;
      state.runId = event.runId;
      return;
    case EventType.RUN_FINISHED:
      state.status = "finished";
      return;
    case EventType.RUN_ERROR:
      state.status = "errored";
      return;
    case EventType.TEXT_MESSAGE_START:
      state.messageIds.add(event.messageId);
      if (event.role === undefined || event.role === "assistant") state.assistantMessageIds.add(event.messageId);
      state.open.push({ kind: "text message", id: event.messageId });
      return;
    case EventType.TEXT_MESSAGE_END:
      closeEntity(state, "text message", event.messageId);
      return;
    case EventType.TOOL_CALL_START:
      state.toolCalls.set(event.toolCallId, "open");
      // A tool call naming a message not seen yet makes the client create that assistant message.
      if (event.parentMessageId !== undefined && !state.messageIds.has(event.parentMessageId)) {
        state.messageIds.add(event.parentMessageId);
        state.assistantMessageIds.add(event.parentMessageId);
      }
      state.open.push({ kind: "tool call", id: event.toolCallId });
      return;
    case EventType.TOOL_CALL_END:
      state.toolCalls.set(event.toolCallId, "ended");
      closeEntity(state, "tool call", event.toolCallId);
      return;
    case EventType.TOOL_CALL_RESULT:
      state.toolCalls.set(event.toolCallId, "answered");
      state.messageIds.add(event.messageId);
      return;
    case EventType.REASONING_START:
      state.spanIds.add(event.messageId);
      state.open.push({ kind: "reasoning span", id: event.messageId });
      return;
    case EventType.REASONING_END:
      closeEntity(state, "reasoning span", event.messageId);
      return;
    case EventType.REASONING_MESSAGE_START:
      state.messageIds.add(event.messageId);
      state.open.push({ kind: "reasoning message", id: event.messageId });
      return;
    case EventType.REASONING_MESSAGE_END:
      closeEntity(state, "reasoning message", event.messageId);
      return;
    case EventType.STEP_STARTED:
      state.open.push({ kind: "step", id: event.stepName });
      return;
    case EventType.STEP_FINISHED:
      closeEntity(state, "step", event.stepName);
      return;
    case EventType.ACTIVITY_SNAPSHOT:
      state.messageIds.add(event.messageId);
      state.activityIds.add(event.messageId);
      return;
    default:
      return;
  }
}

export function createEventSequenceGuard(options: EventSequenceGuardOptions = {}): EventSequenceGuard {
  const now = options.now ?? Date.now;
  const state: GuardState = {
    status: "idle",
    threadId: options.threadId,
    runId: options.runId,
    open: [],
    messageIds: new Set(),
    assistantMessageIds: new Set(),
    activityIds: new Set(),
    spanIds: new Set(),
    toolCalls: new Map(),
  };

  function accept(event: AgUiEvent): AgUiEvent {
    checkEvent(state, event);
    recordEvent(state, event);
    return event;
  }

  function close(outcome: RunCloseOutcome): AgUiEvent[] {
    if (state.status === "finished" || state.status === "errored") return [];
    const timestamp = now();
    const emitted: AgUiEvent[] = [];
    const emit = (event: AgUiEvent) => emitted.push(accept(event));
    if (outcome.type === "error") {
      for (const entity of [...state.open].reverse()) emit(endEventFor(entity, timestamp));
      emit({ type: EventType.RUN_ERROR, message: outcome.message, timestamp, ...(outcome.code === undefined ? {} : { code: outcome.code }) });
      return emitted;
    }
    const { threadId, runId } = state;
    // RUN_STARTED always sets both, so only a run that never started can lack them.
    if (threadId === undefined || runId === undefined) {
      throw new EventSequenceError(EventType.RUN_FINISHED, "a run that never started needs threadId and runId to be finished");
    }
    if (state.status === "idle") emit({ type: EventType.RUN_STARTED, threadId, runId, timestamp });
    for (const entity of [...state.open].reverse()) emit(endEventFor(entity, timestamp));
    const result = outcome.type === "success" && outcome.result !== undefined && outcome.result !== null ? { result: outcome.result } : {};
    const finished = outcome.type === "interrupt" ? { type: outcome.type, interrupts: outcome.interrupts } : { type: outcome.type };
    emit({ type: EventType.RUN_FINISHED, threadId, runId, timestamp, outcome: finished, ...result });
    return emitted;
  }

  return {
    get status() {
      return state.status;
    },
    accept,
    close,
    adoptToolCall(toolCallId) {
      if (!state.toolCalls.has(toolCallId)) state.toolCalls.set(toolCallId, "ended");
    },
    closeOpen() {
      if (state.status !== "running") return [];
      const timestamp = now();
      return [...state.open].reverse().map((entity) => accept(endEventFor(entity, timestamp)));
    },
    unansweredToolCalls() {
      return [...state.toolCalls].flatMap(([id, call]) => (call === "ended" ? [id] : []));
    },
  };
}
