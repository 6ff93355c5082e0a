import "server-only";
import { randomUUID } from "node:crypto";
import { EventType } from "@ag-ui/core";
import type { AgUiEvent } from "../protocols/ag-ui/events";
import { describeIssues } from "../protocols/runner/manifest";
import {
  isKnownResultType,
  MAX_RESULT_BYTES,
  RESULT_DATA_SCHEMAS,
  resultEnvelopeSchema,
  type KnownResultType,
  type ResultData,
} from "../protocols/runner/result";
import { RunnerFailure, type EmitExtras, type TokenUsage } from "../kernel/runs";
import type { ApprovalRow } from "../approvals/repository";
import type { HostToolCall } from "./result-tool-calls";
import { ResultWire } from "./result-wire";

// Turns a runner's NDJSON AgentRunResult stream into the run's AG-UI events. Every line is
// checked on its own: a bad line is recorded and skipped, never fatal; a duplicate
// (run_id, sequence) is applied once; unknown types are ignored with a warning; exactly one
// terminal result ends the run.

export type Disposition = "applied" | "duplicate" | "ignored" | "rejected" | "host";

/** One line of the run's result log, as the admin console shows it. */
export type ResultRecord = { idx: number; sequence: number | null; type: string; disposition: Disposition; detail: string | null; data: unknown };

/** Side effects a result may ask for; the host decides (state, artifacts, platform actions). */
export type ResultEffects = {
  updateState(data: ResultData<"state.updated">): Promise<void>;
  createArtifact(data: ResultData<"artifact.created">): Promise<{ artifact_id: string; mime_type: string; size: number; name: string | null }>;
  /** Performs a platform action, or says why it was refused (nothing written then). */
  requestAction(data: ResultData<"action.requested">): Promise<{ executed: Record<string, unknown> } | { refused: { reason: string; message: string } }>;
};

const PREVIEW_BYTES = 4096;

const tokenUsage = (u: ResultData<"run.completed">["usage"]): TokenUsage | undefined =>
  u ? { inputTokens: u.input_tokens, outputTokens: u.output_tokens, totalTokens: u.total_tokens ?? u.input_tokens + u.output_tokens } : undefined;

function preview(data: unknown, size: number): unknown {
  if (size <= PREVIEW_BYTES) return data;
  const text = JSON.stringify(data);
  return { truncated: true, size, preview: text.slice(0, PREVIEW_BYTES) };
}

export class ResultStreamProcessor {
  readonly records: ResultRecord[] = [];
  private readonly sequences = new Set<number>();
  private readonly wire: ResultWire;
  // Calls the host ran for the runner through tools/call (result-tool-calls.ts): answered, or
  // waiting for a person. The runner's own tool.call.* results for them add nothing: the host's
  // answer (and card) stands, and a call waiting for a person stays open.
  private readonly hostCalls = new Map<string, "answered" | "pending">();
  private readonly pending = new Map<string, { row: ApprovalRow; parentMessageId: string }>();
  /** For calls of earlier runs this run carries: the assistant message each was streamed under. */
  carriedParents: ReadonlyMap<string, string> = new Map();
  private terminal: { type: "run.completed"; usage?: TokenUsage; finishReason?: string } | { type: "run.failed"; failure: RunnerFailure; usage?: TokenUsage } | null = null;
  private effects: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly runId: string,
    private readonly emit: (event: AgUiEvent, extras?: EmitExtras) => void,
    private readonly host: ResultEffects,
    private readonly warn: (detail: string, type: string) => void,
  ) {
    this.wire = new ResultWire(emit);
  }

  get finished(): boolean {
    return this.terminal !== null;
  }

  /** The usage the runner's terminal result reported, if any (a failed run's too). */
  get reportedUsage(): TokenUsage | undefined {
    return this.terminal?.usage;
  }

  private record(r: Omit<ResultRecord, "idx">): void {
    this.records.push({ idx: this.records.length, ...r });
    if (r.disposition !== "applied" && r.disposition !== "host" && r.detail) this.warn(r.detail, r.type);
  }

  /** A line too large to read: the reader skipped it without buffering it. */
  oversize(size: number): void {
    this.record({ sequence: null, type: "(oversize)", disposition: "rejected", detail: `result line of ${size}+ bytes exceeds the ${MAX_RESULT_BYTES}-byte limit`, data: null });
  }

  /** Host-side entries (cancel, deadline, transport failure) so the log tells the whole story. */
  hostNote(type: string, data: Record<string, unknown>): void {
    this.record({ sequence: null, type, disposition: "host", detail: null, data });
  }

  accept(line: string): void {
    if (line.trim() === "") return;
    const size = Buffer.byteLength(line, "utf8");
    if (size > MAX_RESULT_BYTES) return this.oversize(size);
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      return this.record({ sequence: null, type: "(malformed)", disposition: "rejected", detail: "not a JSON line", data: { preview: line.slice(0, 200) } });
    }
    const env = resultEnvelopeSchema.safeParse(raw);
    const type = typeof (raw as { type?: unknown })?.type === "string" ? String((raw as { type: string }).type).slice(0, 100) : "(invalid)";
    if (!env.success) return this.record({ sequence: null, type, disposition: "rejected", detail: `not an AgentRunResult: ${describeIssues(env.error)}`, data: preview(raw, size) });
    const result = env.data;
    const sequence = result.sequence ?? null;
    const base = { sequence, type: result.type, data: preview(result.data, size) };
    if (result.run_id !== this.runId) return this.record({ ...base, disposition: "rejected", detail: `run_id ${result.run_id.slice(0, 64)} is not this run` });
    if (sequence !== null) {
      if (this.sequences.has(sequence)) return this.record({ ...base, disposition: "duplicate", detail: `sequence ${sequence} was already applied` });
      this.sequences.add(sequence);
    }
    if (this.terminal) return this.record({ ...base, disposition: "rejected", detail: `arrived after the terminal ${this.terminal.type}` });
    if (!isKnownResultType(result.type)) return this.record({ ...base, disposition: "ignored", detail: `unknown result type ${result.type}` });
    const data = RESULT_DATA_SCHEMAS[result.type].safeParse(result.data);
    if (!data.success) {
      if (sequence !== null) this.sequences.delete(sequence); // a corrected resend may follow
      return this.record({ ...base, disposition: "rejected", detail: `invalid ${result.type} data: ${describeIssues(data.error)}` });
    }
    const callId = (data.data as { tool_call_id?: string }).tool_call_id;
    if ((result.type === "tool.call.started" || result.type === "tool.call.completed") && callId && this.hostCalls.has(callId)) {
      return this.record({ ...base, disposition: "host", detail: "the host's tools/call streamed this call" });
    }
    // The record is pushed right after apply, so its index is known to effects queued by apply.
    const refusal = this.apply(result.type, data.data, this.records.length);
    this.record({ ...base, disposition: refusal ? "rejected" : "applied", detail: refusal });
  }

  /** Applies a valid result; answers a reason when the host refused it. */
  private apply(type: KnownResultType, data: unknown, idx: number): string | null {
    switch (type) {
      case "message.delta": {
        const { chunk } = data as ResultData<"message.delta">;
        this.wire.appendText(chunk.content, chunk.id ?? undefined);
        return null;
      }
      case "message.completed": {
        const { message } = data as ResultData<"message.completed">;
        this.wire.completeText(message.content ?? "", message.id ?? undefined);
        return null;
      }
      case "tool.call.started": {
        const d = data as ResultData<"tool.call.started">;
        if (this.wire.startedToolCalls.has(d.tool_call_id)) return `tool call ${d.tool_call_id} was already started`;
        this.wire.startTool(d.tool_call_id, d.tool_name, d.parameters);
        return null;
      }
      case "tool.call.completed": {
        const d = data as ResultData<"tool.call.completed">;
        if (this.wire.completedToolCalls.has(d.tool_call_id)) return `tool call ${d.tool_call_id} was already completed`;
        if (!this.wire.startedToolCalls.has(d.tool_call_id)) this.wire.startTool(d.tool_call_id, d.tool_name ?? "tool", {});
        this.wire.completedToolCalls.add(d.tool_call_id);
        const content = JSON.stringify(d.error ? { error: d.error } : (d.result ?? null));
        this.emit({ type: EventType.TOOL_CALL_RESULT, messageId: randomUUID(), toolCallId: d.tool_call_id, content, role: "tool" });
        return null;
      }
      case "state.updated":
        this.queue(() => this.host.updateState(data as ResultData<"state.updated">), idx);
        return null;
      case "artifact.created":
        this.queue(async () => {
          const ref = await this.host.createArtifact(data as ResultData<"artifact.created">);
          this.emit({ type: EventType.CUSTOM, name: "artifact.created", value: ref });
        }, idx);
        return null;
      case "action.requested": {
        const d = data as ResultData<"action.requested">;
        this.queue(async () => {
          const outcome = await this.host.requestAction(d);
          if ("executed" in outcome) return this.hostNote("action.executed", { action: d.action, ...outcome.executed });
          this.warn(`action ${d.action} refused: ${outcome.refused.message}`, "action.requested");
          const record = this.records[idx];
          if (record) Object.assign(record, { disposition: "rejected", detail: outcome.refused.message });
          this.hostNote("action.refused", { action: d.action, reason: outcome.refused.reason, message: outcome.refused.message });
        }, idx);
        return null;
      }
      case "run.completed": {
        const d = data as ResultData<"run.completed">;
        if (d.message?.content && !this.wire.emittedText && !this.wire.hasOpenText) this.wire.completeText(d.message.content);
        this.wire.closeText();
        this.terminal = { type: "run.completed", usage: tokenUsage(d.usage), finishReason: d.finish_reason ?? undefined };
        return null;
      }
      case "run.failed": {
        const d = data as ResultData<"run.failed">;
        this.wire.closeText();
        this.terminal = { type: "run.failed", failure: new RunnerFailure(d.code, d.message || `The runner failed (${d.code})`, d.retryable), usage: tokenUsage(d.usage) };
        return null;
      }
    }
  }

  private queue(effect: () => Promise<unknown>, idx: number): void {
    // Effects run in arrival order; a failed one is logged and its record marked, never fatal to the run.
    this.effects = this.effects.then(effect).catch((err: unknown) => {
      const reason = err instanceof Error ? err.message : String(err);
      const record = this.records[idx];
      this.warn(`${record?.type ?? "effect"} not applied: ${reason}`, record?.type ?? "effect");
      if (record) {
        record.disposition = "rejected";
        record.detail = reason;
      }
    });
  }

  /**
   * A call the host ran for the runner (tools/call), streamed as the built-in agent streams its
   * own: the call (unless the runner's tool.call.started showed it already), then its result
   * with the card, and a tool message with the ToolAgentOutput. A call waiting for a person
   * stays open and the run ends with an interrupt; a call an earlier run left waiting is answered
   * in this run, under that run's call.
   */
  hostToolCall(call: HostToolCall): void {
    const id = call.toolCallId;
    // Calls handed over by another instance may arrive after the runner's terminal result, until the run's end is taken.
    if (this.closed) {
      this.hostNote("tool.call.late", { tool_call_id: id, reason: "the run had ended; its answer reached the runner only" });
      return;
    }
    if (this.wire.completedToolCalls.has(id)) return; // a retry of a call answered already
    const status = call.pending ? "pending" : "answered";
    this.hostNote("tool.call.host", { tool_call_id: id, tool_name: call.toolName, status, ...(call.carried ? { approval_id: call.carried.approvalId } : {}) });
    if (call.pending) {
      if (!this.wire.startedToolCalls.has(id)) this.wire.startTool(id, call.toolName, call.args);
      this.hostCalls.set(id, "pending");
      this.pending.set(id, { row: call.pending, parentMessageId: this.wire.parentOf(id)! });
      return;
    }
    this.hostCalls.set(id, "answered");
    this.pending.delete(id);
    const carried = call.carried;
    if (!carried && !this.wire.startedToolCalls.has(id)) this.wire.startTool(id, call.toolName, call.args);
    if (carried) this.wire.closeText();
    this.wire.completedToolCalls.add(id);
    const { toolResponseText, uiSchema, output } = call.outcome;
    const parent = carried ? (carried.parentMessageId ?? this.carriedParents.get(id)) : this.wire.parentOf(id);
    this.emit(
      { type: EventType.TOOL_CALL_RESULT, messageId: `tool_${randomUUID()}`, toolCallId: id, content: toolResponseText, role: "tool", metadata: { ui_schema: uiSchema } },
      {
        messageMetadata: {
          tool_name: call.toolName,
          ...(output ? { tool_agent_output: output } : { tool_call_args: call.args }),
          ...(carried ? { approval_id: carried.approvalId } : {}),
          ...(parent ? { parent_message_id: parent } : {}),
        },
        ...(carried ? { answersEarlierCall: true } : {}),
      },
    );
  }

  /** Waits for queued effects, then answers the run's end: usage and the calls left waiting for a person, or the runner's failure. */
  async finish(): Promise<{ usage?: TokenUsage; finishReason?: string; awaiting: { row: ApprovalRow; parentMessageId: string }[] }> {
    await this.effects;
    this.closed = true;
    this.wire.closeText();
    if (!this.terminal) throw new RunnerFailure("runner.incomplete", "The runner closed its result stream without run.completed or run.failed");
    if (this.terminal.type === "run.failed") throw this.terminal.failure;
    return { usage: this.terminal.usage, finishReason: this.terminal.finishReason, awaiting: [...this.pending.values()] };
  }
}
