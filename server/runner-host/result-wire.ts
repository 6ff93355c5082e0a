import "server-only";
import { randomUUID } from "node:crypto";
import { EventType } from "@ag-ui/core";
import type { AgUiEvent } from "../protocols/ag-ui/events";
import type { EmitExtras } from "../kernel/runs";

// The AG-UI side of a runner's results: which assistant message is open, which tool calls were
// streamed and under which message. ResultStreamProcessor decides what a result means; this
// class writes it as START/CONTENT/END triples the sequence guard accepts.
export class ResultWire {
  private openMessage: { id: string; text: string } | null = null;
  private readonly usedIds = new Set<string>();
  readonly startedToolCalls = new Set<string>();
  readonly completedToolCalls = new Set<string>();
  /** Whether any assistant text was streamed in this run. */
  emittedText = false;
  // The assistant message a tool call belongs to on the wire: the text before it, else one made up.
  private lastTextId: string | null = null;
  private toolParentId: string | null = null;
  private readonly parents = new Map<string, string>();

  constructor(private readonly emit: (event: AgUiEvent, extras?: EmitExtras) => void) {}

  get hasOpenText(): boolean {
    return this.openMessage !== null;
  }

  /** The assistant message the call `id` was streamed under. */
  parentOf(id: string): string | undefined {
    return this.parents.get(id);
  }

  appendText(content: string, id?: string): void {
    if (content.length === 0) return;
    const open = this.openText(id);
    open.text += content;
    this.emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: open.id, delta: content });
  }

  completeText(content: string, id?: string): void {
    if (!this.openMessage && content.length === 0) return;
    const open = this.openText(id);
    // A completed message that extends what was streamed sends the rest; one that contradicts
    // it cannot be unsent, so the streamed text stands.
    if (content.length > open.text.length && content.startsWith(open.text)) {
      const rest = content.slice(open.text.length);
      open.text = content;
      this.emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: open.id, delta: rest });
    }
    this.closeText();
  }

  closeText(): void {
    if (!this.openMessage) return;
    this.emit({ type: EventType.TEXT_MESSAGE_END, messageId: this.openMessage.id });
    this.openMessage = null;
  }

  startTool(id: string, name: string, parameters: unknown): void {
    const parentMessageId = this.openMessage?.id ?? this.lastTextId ?? (this.toolParentId ??= `msg_${randomUUID()}`);
    this.closeText();
    this.startedToolCalls.add(id);
    this.parents.set(id, parentMessageId);
    this.emit({ type: EventType.TOOL_CALL_START, toolCallId: id, toolCallName: name, parentMessageId });
    this.emit({ type: EventType.TOOL_CALL_ARGS, toolCallId: id, delta: JSON.stringify(parameters ?? {}) });
    this.emit({ type: EventType.TOOL_CALL_END, toolCallId: id });
  }

  private openText(id?: string): { id: string; text: string } {
    if (this.openMessage) return this.openMessage;
    const messageId = id && !this.usedIds.has(id) ? id : randomUUID();
    this.usedIds.add(messageId);
    this.lastTextId = messageId;
    this.toolParentId = null;
    this.openMessage = { id: messageId, text: "" };
    this.emittedText = true;
    this.emit({ type: EventType.TEXT_MESSAGE_START, messageId, role: "assistant" });
    return this.openMessage;
  }
}
