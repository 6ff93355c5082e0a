import { EventType, type AGUIEvent, type BaseEvent, type Interrupt } from "@ag-ui/core";
import type { ApprovalInfo } from "./approval-card";
import { errorFromRunCode, type ChatError } from "./chat-errors";

// What the chat shows of a run while it streams: the user's message, then the model's
// thinking, the answer's text and tool calls in the order they arrived, and how the run ended. Built only from
// AG-UI events, so a live run and a run replayed from its event log look the same.

/** An attachment of a message being sent: an image, or a document (with its size, for its chip). */
export type LiveImage = { url: string; mimeType: string; name: string; size?: number };

export type LiveItem =
  | { kind: "text"; id: string; text: string; streaming: boolean }
  /** The model's thinking; `startedAt`/`durationMs` from the events' timestamps, so a replay shows the same time. */
  | { kind: "reasoning"; id: string; text: string; streaming: boolean; startedAt: number | null; durationMs: number | null }
  | {
      kind: "tool";
      id: string;
      name: string;
      status: "running" | "done" | "stopped";
      result: { content: string; uiSchema: unknown } | null;
      /** The call's arguments while they stream (dropped at TOOL_CALL_END). */
      args?: string;
      /** What a project_cli call runs, read from its arguments: a module (an MCP server's name) and a method. */
      target?: { module: string; method: string };
      /** The run ended waiting for the user's approval of this call (components/chat/approval-card.tsx). */
      approval?: { info: ApprovalInfo; uiSchema: unknown };
    };

export type TurnStatus = "sending" | "running" | "completed" | "cancelled" | "failed";

export type LiveTurn = {
  key: string;
  runId: string;
  /** Null when the page rejoined a run whose user message is already in the history above. */
  user: { id: string; text: string; images: LiveImage[] } | null;
  items: LiveItem[];
  status: TurnStatus;
  started: boolean;
  stopping: boolean;
  error: ChatError | null;
};

export function isTurnOpen(turn: LiveTurn): boolean {
  return turn.status === "sending" || turn.status === "running";
}

export function newTurn(opts: { key: string; runId: string; user: LiveTurn["user"] }): LiveTurn {
  return { ...opts, items: [], status: "sending", started: false, stopping: false, error: null };
}

/** The same turn, ready to be rebuilt from a replay of its run's events. */
export function resetTurn(turn: LiveTurn): LiveTurn {
  return { ...turn, items: [], status: "sending", started: false, error: null };
}

export function failTurn(turn: LiveTurn, error: ChatError): LiveTurn {
  return { ...turn, status: "failed", stopping: false, error, items: closeItems(turn.items, "stopped") };
}

function closeItems(items: LiveItem[], toolStatus: "stopped" | "done"): LiveItem[] {
  return items.map((item) => {
    if (item.kind === "text" || item.kind === "reasoning") return item.streaming ? { ...item, streaming: false } : item;
    return item.status === "running" ? { ...item, status: toolStatus } : item;
  });
}

function updateItem(items: LiveItem[], id: string, kind: LiveItem["kind"], update: (item: LiveItem) => LiveItem): LiveItem[] {
  return items.map((item) => (item.id === id && item.kind === kind ? update(item) : item));
}

function hasItem(items: LiveItem[], id: string, kind: LiveItem["kind"]): boolean {
  return items.some((item) => item.id === id && item.kind === kind);
}

function uiSchemaOf(metadata: unknown): unknown {
  if (!metadata || typeof metadata !== "object") return null;
  return (metadata as { ui_schema?: unknown }).ui_schema ?? null;
}

function appendReasoning(items: LiveItem[], id: string, delta: string): LiveItem[] {
  if (!hasItem(items, id, "reasoning")) return [...items, { kind: "reasoning", id, text: delta, streaming: true, startedAt: null, durationMs: null }];
  return updateItem(items, id, "reasoning", (item) => (item.kind === "reasoning" ? { ...item, text: item.text + delta } : item));
}

function endReasoning(items: LiveItem[], id: string, endedAt: number | undefined): LiveItem[] {
  return updateItem(items, id, "reasoning", (item) =>
    item.kind === "reasoning" ? { ...item, streaming: false, durationMs: item.startedAt !== null && endedAt !== undefined ? Math.max(0, endedAt - item.startedAt) : null } : item,
  );
}

function appendText(items: LiveItem[], id: string, delta: string): LiveItem[] {
  if (!hasItem(items, id, "text")) return [...items, { kind: "text", id, text: delta, streaming: true }];
  return updateItem(items, id, "text", (item) => (item.kind === "text" ? { ...item, text: item.text + delta } : item));
}

/** Folds one AG-UI event into the turn; events it has no view for leave it unchanged. */
export function applyRunEvent(turn: LiveTurn, raw: BaseEvent): LiveTurn {
  const event = raw as AGUIEvent;
  switch (event.type) {
    case EventType.RUN_STARTED:
      return { ...turn, status: "running", started: true };
    case EventType.TEXT_MESSAGE_START:
      if (event.role && event.role !== "assistant") return turn;
      if (hasItem(turn.items, event.messageId, "text")) return turn;
      return { ...turn, items: [...turn.items, { kind: "text", id: event.messageId, text: "", streaming: true }] };
    case EventType.TEXT_MESSAGE_CONTENT:
      return { ...turn, items: appendText(turn.items, event.messageId, event.delta) };
    case EventType.TEXT_MESSAGE_END:
      return {
        ...turn,
        items: updateItem(turn.items, event.messageId, "text", (item) => (item.kind === "text" ? { ...item, streaming: false } : item)),
      };
    case EventType.REASONING_MESSAGE_START:
      if (hasItem(turn.items, event.messageId, "reasoning")) return turn;
      return {
        ...turn,
        items: [...turn.items, { kind: "reasoning", id: event.messageId, text: "", streaming: true, startedAt: event.timestamp ?? null, durationMs: null }],
      };
    case EventType.REASONING_MESSAGE_CONTENT:
      return { ...turn, items: appendReasoning(turn.items, event.messageId, event.delta) };
    case EventType.REASONING_MESSAGE_END:
      return { ...turn, items: endReasoning(turn.items, event.messageId, event.timestamp) };
    case EventType.TOOL_CALL_START:
      if (hasItem(turn.items, event.toolCallId, "tool")) return turn;
      return { ...turn, items: [...turn.items, { kind: "tool", id: event.toolCallId, name: event.toolCallName, status: "running", result: null }] };
    case EventType.TOOL_CALL_ARGS:
      return { ...turn, items: updateItem(turn.items, event.toolCallId, "tool", (item) => (item.kind === "tool" ? { ...item, args: (item.args ?? "") + event.delta } : item)) };
    case EventType.TOOL_CALL_END:
      return { ...turn, items: updateItem(turn.items, event.toolCallId, "tool", withTarget) };
    case EventType.TOOL_CALL_RESULT: {
      const result = {
        content: typeof event.content === "string" ? event.content : JSON.stringify(event.content),
        uiSchema: uiSchemaOf(event.metadata),
      };
      if (!hasItem(turn.items, event.toolCallId, "tool")) {
        return { ...turn, items: [...turn.items, { kind: "tool", id: event.toolCallId, name: "tool", status: "done", result }] };
      }
      return {
        ...turn,
        items: updateItem(turn.items, event.toolCallId, "tool", (item) => (item.kind === "tool" ? { ...item, status: "done", result } : item)),
      };
    }
    case EventType.RUN_FINISHED: {
      const cancelled = event.outcome?.type === "cancelled";
      const items = closeItems(turn.items, cancelled ? "stopped" : "done");
      const waiting = event.outcome?.type === "interrupt" ? withApprovals(items, event.outcome.interrupts) : items;
      return { ...turn, status: cancelled ? "cancelled" : "completed", stopping: false, items: waiting };
    }
    case EventType.RUN_ERROR:
      return failTurn(turn, { kind: errorFromRunCode(event.code) });
    case EventType.CUSTOM:
      return event.name === "message.edited" ? withEditedText(turn, event.value) : turn;
    default:
      return turn;
  }
}

/** A project_cli call's module and method, from its complete arguments; the streamed text goes. */
function withTarget(item: LiveItem): LiveItem {
  if (item.kind !== "tool") return item;
  const { args, ...rest } = item;
  if (item.name !== "project_cli" || !args) return rest;
  try {
    const { module, method } = JSON.parse(args) as { module?: unknown; method?: unknown };
    return typeof module === "string" && typeof method === "string" && module && method ? { ...rest, target: { module, method } } : rest;
  } catch {
    return rest;
  }
}

/** A runner edited one of its messages of this turn (a platform action): the new text replaces the old. */
function withEditedText(turn: LiveTurn, value: unknown): LiveTurn {
  const { messageId, content } = (value ?? {}) as { messageId?: unknown; content?: unknown };
  if (typeof messageId !== "string" || typeof content !== "string") return turn;
  return { ...turn, items: updateItem(turn.items, messageId, "text", (item) => (item.kind === "text" ? { ...item, text: content } : item)) };
}

/** The calls an interrupted run left waiting for approval get their approval card. */
function withApprovals(items: LiveItem[], interrupts: Interrupt[]): LiveItem[] {
  return items.map((item) => {
    if (item.kind !== "tool") return item;
    const interrupt = interrupts.find((i) => i.toolCallId === item.id);
    const meta = interrupt?.metadata as { approval?: ApprovalInfo; ui_schema?: unknown } | undefined;
    return meta?.approval ? { ...item, approval: { info: meta.approval, uiSchema: meta.ui_schema ?? null } } : item;
  });
}
