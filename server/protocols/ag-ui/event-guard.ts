import { firstIssue } from "../../input-issues";
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

export function createEventSequenceGuard(options: EventSequenceGuardOptions = {}): EventSequenceGuard {
  const now = options.now ?? Date.now;
  let status: EventGuardStatus = "idle";
  let threadId = options.threadId;
  let runId = options.runId;
  const open: OpenEntity[] = [];
  // One namespace for every message the client will materialise (text, reasoning, tool
  // result, activity), so two events can never mint the same message.
  const messageIds = new Set<string>();
  const assistantMessageIds = new Set<string>();
  const activityIds = new Set<string>();
  const spanIds = new Set<string>();
  const toolCalls = new Map<string, "open" | "ended" | "answered">();

  const isOpen = (kind: OpenKind, id: string) => open.some((entity) => entity.kind === kind && entity.id === id);
  const closeEntity = (kind: OpenKind, id: string) => {
    const index = open.findIndex((entity) => entity.kind === kind && entity.id === id);
    if (index >= 0) open.splice(index, 1);
  };

  function check(event: AgUiEvent): void {
    const type = String((event as { type?: unknown }).type);
    const fail = (message: string): never => {
      throw new EventSequenceError(type, message);
    };
    const parsed = AgUiEventSchema.safeParse(event);
    if (!parsed.success) {
      const issue = firstIssue(parsed.error.issues);
      fail(`not a valid AG-UI 1.0 event (${issue?.field || "event"}: ${issue?.message})`);
    }
    const extra = unknownEventFields(event);
    if (extra.length > 0) fail(`unknown fields ${extra.join(", ")} would be dropped by AG-UI clients`);
    if (UNSUPPORTED.has(event.type)) fail("not supported: emit explicit START/CONTENT/END events without subagents");
    if ("subagentRunId" in event && event.subagentRunId !== undefined) fail("subagent attribution is not supported");
    if (status === "finished") fail("the run already finished with RUN_FINISHED");
    if (status === "errored") fail("the run already ended with RUN_ERROR");
    if (status === "idle" && event.type !== EventType.RUN_STARTED && event.type !== EventType.RUN_ERROR) {
      fail("the first event of a run must be RUN_STARTED");
    }
    const delta = (value: string) => {
      if (value.length === 0) fail("empty delta");
    };
    const newMessageId = (id: string) => {
      if (messageIds.has(id)) fail(`message id '${id}' is already used in this run`);
    };
    const mustBeOpen = (kind: OpenKind, id: string) => {
      if (!isOpen(kind, id)) fail(`no open ${kind} '${id}'`);
    };

    switch (event.type) {
      case EventType.RUN_STARTED:
        if (status !== "idle") fail("the run already started");
        if (threadId !== undefined && event.threadId !== threadId) fail(`threadId '${event.threadId}' is not this run's '${threadId}'`);
        if (runId !== undefined && event.runId !== runId) fail(`runId '${event.runId}' is not this run's '${runId}'`);
        return;
      case EventType.RUN_FINISHED:
        if (open.length > 0) fail(`still open: ${open.map((entity) => `${entity.kind} '${entity.id}'`).join(", ")}`);
        if (event.threadId !== threadId || event.runId !== runId) fail("threadId and runId must match RUN_STARTED");
        return;
      case EventType.TEXT_MESSAGE_START:
        newMessageId(event.messageId);
        return;
      case EventType.TEXT_MESSAGE_CONTENT:
        mustBeOpen("text message", event.messageId);
        delta(event.delta);
        return;
      case EventType.TEXT_MESSAGE_END:
        mustBeOpen("text message", event.messageId);
        return;
      case EventType.TOOL_CALL_START: {
        if (toolCalls.has(event.toolCallId)) fail(`tool call id '${event.toolCallId}' is already used in this run`);
        const parent = event.parentMessageId;
        if (parent !== undefined && messageIds.has(parent) && !assistantMessageIds.has(parent)) {
          fail(`parent message '${parent}' is not an assistant message`);
        }
        return;
      }
      case EventType.TOOL_CALL_ARGS:
        mustBeOpen("tool call", event.toolCallId);
        delta(event.delta);
        return;
      case EventType.TOOL_CALL_END:
        mustBeOpen("tool call", event.toolCallId);
        return;
      case EventType.TOOL_CALL_RESULT: {
        const state = toolCalls.get(event.toolCallId);
        if (state === undefined) fail(`unknown tool call '${event.toolCallId}'`);
        if (state === "open") fail(`tool call '${event.toolCallId}' has not ended`);
        if (state === "answered") fail(`tool call '${event.toolCallId}' already has a result`);
        newMessageId(event.messageId);
        return;
      }
      case EventType.REASONING_START:
        if (spanIds.has(event.messageId)) fail(`reasoning span id '${event.messageId}' is already used in this run`);
        return;
      case EventType.REASONING_END:
        mustBeOpen("reasoning span", event.messageId);
        return;
      case EventType.REASONING_MESSAGE_START:
        newMessageId(event.messageId);
        return;
      case EventType.REASONING_MESSAGE_CONTENT:
        mustBeOpen("reasoning message", event.messageId);
        delta(event.delta);
        return;
      case EventType.REASONING_MESSAGE_END:
        mustBeOpen("reasoning message", event.messageId);
        return;
      case EventType.REASONING_ENCRYPTED_VALUE: {
        const known = event.subtype === "tool-call" ? toolCalls.has(event.entityId) : messageIds.has(event.entityId);
        if (!known) fail(`unknown ${event.subtype} '${event.entityId}'`);
        return;
      }
      case EventType.STEP_STARTED:
        if (isOpen("step", event.stepName)) fail(`step '${event.stepName}' is already active`);
        return;
      case EventType.STEP_FINISHED:
        mustBeOpen("step", event.stepName);
        return;
      case EventType.ACTIVITY_SNAPSHOT:
        if (!activityIds.has(event.messageId)) newMessageId(event.messageId);
        return;
      case EventType.ACTIVITY_DELTA:
        if (!activityIds.has(event.messageId)) fail(`unknown activity '${event.messageId}'`);
        return;
      default:
        return;
    }
  }

  function record(event: AgUiEvent): void {
    switch (event.type) {
      case EventType.RUN_STARTED:
        status = "running";
        threadId = event.threadId;
        runId = event.runId;
        return;
      case EventType.RUN_FINISHED:
        status = "finished";
        return;
      case EventType.RUN_ERROR:
        status = "errored";
        return;
      case EventType.TEXT_MESSAGE_START:
        messageIds.add(event.messageId);
        if (event.role === undefined || event.role === "assistant") assistantMessageIds.add(event.messageId);
        open.push({ kind: "text message", id: event.messageId });
        return;
      case EventType.TEXT_MESSAGE_END:
        closeEntity("text message", event.messageId);
        return;
      case EventType.TOOL_CALL_START:
        toolCalls.set(event.toolCallId, "open");
        // A tool call naming a message not seen yet makes the client create that assistant message.
        if (event.parentMessageId !== undefined && !messageIds.has(event.parentMessageId)) {
          messageIds.add(event.parentMessageId);
          assistantMessageIds.add(event.parentMessageId);
        }
        open.push({ kind: "tool call", id: event.toolCallId });
        return;
      case EventType.TOOL_CALL_END:
        toolCalls.set(event.toolCallId, "ended");
        closeEntity("tool call", event.toolCallId);
        return;
      case EventType.TOOL_CALL_RESULT:
        toolCalls.set(event.toolCallId, "answered");
        messageIds.add(event.messageId);
        return;
      case EventType.REASONING_START:
        spanIds.add(event.messageId);
        open.push({ kind: "reasoning span", id: event.messageId });
        return;
      case EventType.REASONING_END:
        closeEntity("reasoning span", event.messageId);
        return;
      case EventType.REASONING_MESSAGE_START:
        messageIds.add(event.messageId);
        open.push({ kind: "reasoning message", id: event.messageId });
        return;
      case EventType.REASONING_MESSAGE_END:
        closeEntity("reasoning message", event.messageId);
        return;
      case EventType.STEP_STARTED:
        open.push({ kind: "step", id: event.stepName });
        return;
      case EventType.STEP_FINISHED:
        closeEntity("step", event.stepName);
        return;
      case EventType.ACTIVITY_SNAPSHOT:
        messageIds.add(event.messageId);
        activityIds.add(event.messageId);
        return;
      default:
        return;
    }
  }

  function accept(event: AgUiEvent): AgUiEvent {
    check(event);
    record(event);
    return event;
  }

  function close(outcome: RunCloseOutcome): AgUiEvent[] {
    if (status === "finished" || status === "errored") return [];
    const timestamp = now();
    const emitted: AgUiEvent[] = [];
    const emit = (event: AgUiEvent) => emitted.push(accept(event));
    if (outcome.type === "error") {
      for (const entity of [...open].reverse()) emit(endEventFor(entity, timestamp));
      emit({ type: EventType.RUN_ERROR, message: outcome.message, timestamp, ...(outcome.code === undefined ? {} : { code: outcome.code }) });
      return emitted;
    }
    // RUN_STARTED always sets both, so only a run that never started can lack them.
    if (threadId === undefined || runId === undefined) {
      throw new EventSequenceError(EventType.RUN_FINISHED, "a run that never started needs threadId and runId to be finished");
    }
    if (status === "idle") emit({ type: EventType.RUN_STARTED, threadId, runId, timestamp });
    for (const entity of [...open].reverse()) emit(endEventFor(entity, timestamp));
    const result = outcome.type === "success" && outcome.result !== undefined && outcome.result !== null ? { result: outcome.result } : {};
    const finished = outcome.type === "interrupt" ? { type: outcome.type, interrupts: outcome.interrupts } : { type: outcome.type };
    emit({ type: EventType.RUN_FINISHED, threadId, runId, timestamp, outcome: finished, ...result });
    return emitted;
  }

  return {
    get status() {
      return status;
    },
    accept,
    close,
    adoptToolCall(toolCallId) {
      if (!toolCalls.has(toolCallId)) toolCalls.set(toolCallId, "ended");
    },
    closeOpen() {
      if (status !== "running") return [];
      const timestamp = now();
      return [...open].reverse().map((entity) => accept(endEventFor(entity, timestamp)));
    },
    unansweredToolCalls() {
      return [...toolCalls].flatMap(([id, state]) => (state === "ended" ? [id] : []));
    },
  };
}
