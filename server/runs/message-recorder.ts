import "server-only";
import { EventType } from "@ag-ui/core";
import { logger } from "../logger";
import type { AgUiEvent } from "../protocols/ag-ui/events";
import { appendRunMessages, type RunMessage } from "./repository/run-messages";
import type { EmitExtras, RunHandle } from "../kernel/runs";

// A completed message waits this long for the next one, so a step's messages (and the last
// ones, with the run's end) are written together rather than a statement each.
const MESSAGE_FLUSH_MS = 20;

/** Tracks streamed messages so each one lands in the thread shortly after it completes. */
export class MessageRecorder {
  private readonly texts = new Map<string, { role: string; parts: string[] }>();
  // Reasoning messages in progress, with when the first thought came (the chat's "Thought for N s",
  // from the events' timestamps as the live chat reads them).
  private readonly reasonings = new Map<string, { parts: string[]; startedAt: number }>();
  private pending: RunMessage[] = [];
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly run: RunHandle, private readonly startedAt: number) {}

  observe(event: AgUiEvent, extras?: EmitExtras): void {
    switch (event.type) {
      case EventType.TEXT_MESSAGE_START:
        this.texts.set(event.messageId, { role: event.role ?? "assistant", parts: [] });
        break;
      case EventType.TEXT_MESSAGE_CONTENT:
        this.texts.get(event.messageId)?.parts.push(event.delta);
        break;
      case EventType.TEXT_MESSAGE_END: {
        const msg = this.texts.get(event.messageId);
        this.texts.delete(event.messageId);
        if (msg && msg.parts.length > 0 && !extras?.storedByHost) this.save("assistant", event.messageId, msg.parts.join(""), { stage: "answer", ...extras?.messageMetadata });
        break;
      }
      case EventType.REASONING_MESSAGE_START:
        this.reasonings.set(event.messageId, { parts: [], startedAt: event.timestamp ?? Date.now() });
        break;
      case EventType.REASONING_MESSAGE_CONTENT:
        this.reasonings.get(event.messageId)?.parts.push(event.delta);
        break;
      case EventType.REASONING_MESSAGE_END: {
        const reasoning = this.reasonings.get(event.messageId);
        this.reasonings.delete(event.messageId);
        if (reasoning && reasoning.parts.length > 0) {
          const durationMs = Math.max(0, (event.timestamp ?? Date.now()) - reasoning.startedAt);
          this.save("reasoning", event.messageId, reasoning.parts.join(""), { stage: "reasoning", duration_ms: durationMs });
        }
        break;
      }
      case EventType.TOOL_CALL_RESULT:
        this.save("tool", event.messageId, typeof event.content === "string" ? event.content : JSON.stringify(event.content), { stage: "tool_execution", tool_call_id: event.toolCallId, ...extras?.messageMetadata });
        break;
      default:
        break;
    }
  }

  private save(role: RunMessage["role"], messageId: string, content: string, meta: Record<string, unknown>): void {
    const metadata = { run_id: this.run.runId, message_id: messageId, latency_ms: Date.now() - this.startedAt, ...meta };
    this.pending.push({ role, messageId, content, metadata });
    this.timer ??= setTimeout(() => this.flush(), MESSAGE_FLUSH_MS);
  }

  private flush(): void {
    this.timer = null;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    this.chain = this.chain.then(() =>
      appendRunMessages({ threadId: this.run.threadId, runId: this.run.id, messages: batch, attempt: this.run.attempt ?? 1 }).catch((err: unknown) => {
        // Kept for the run's closing statement, which retries while the database is away.
        this.pending = batch.concat(this.pending);
        logger.warn({ err, runId: this.run.id }, "could not persist run messages yet; they go with the run's end");
      }),
    );
  }

  /** The messages not written yet (for the run's closing statement), once earlier writes are done. */
  async unwritten(): Promise<RunMessage[]> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.chain;
    const rest = this.pending;
    this.pending = [];
    return rest;
  }
}
