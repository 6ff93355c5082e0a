import "server-only";
import { EventType } from "@ag-ui/core";
import { randomUUID } from "node:crypto";
import type { RunnerInput, TokenUsage } from "../kernel/runs";
import { addUsage, knownCounts } from "../usage/token-usage";
import { startStepSpan, type StepSpan } from "../telemetry/step-span";
import type { AgentStreamPart, StepUsage } from "./model-loop";
import type { StatePredictor } from "./predictive-state";
import { toolFailureText, toolOutcomeSchema, type ToolOutcome } from "./tool-outcome";

// Translates the model loop's stream parts into AG-UI events as they arrive. Message ids are
// minted here, never taken from the provider, because providers reuse theirs across steps
// (and the event log refuses a message id twice in one run). Tool call ids are the
// provider's, so a client can match them with what the model saw, unless a provider
// reuses one in a later step: that call gets a suffixed id on the wire.

type Emit = RunnerInput["emit"];
// parentId: the assistant message the call belongs to on the wire, which a client keeps it under.
// predicted: its arguments stream into shared state (predictive-state.ts).
type ToolCallState = { wireId: string; name: string; step: number; ended: boolean; answered: boolean; parentId: string; predicted: boolean };

export class AgUiEventTranslator {
  private readonly texts = new Map<string, string | null>();
  // Every text delta of the run, for what is said after it (the thread's title from a real model).
  private readonly answerDeltas: string[] = [];
  // By the provider's reasoning id: the reasoning message on the wire, once it has content.
  private readonly reasonings = new Map<string, string | null>();
  // By the provider's id; the latest call that used it.
  private readonly toolCalls = new Map<string, ToolCallState>();
  private readonly wireIds = new Set<string>();
  private step = 0;
  // The assistant message of the current step, which the step's tool calls belong to.
  private stepMessageId: string | null = null;
  private usage: TokenUsage = {};
  private failure: unknown = null;

  // The model step in progress, as a GenAI `chat` span (a no-op when tracing is off).
  private stepSpan: StepSpan | null = null;
  private readonly newId: () => string;
  private readonly model: string | undefined;
  private readonly predictor: StatePredictor | null;

  constructor(
    private readonly emit: Emit,
    private readonly serverToolNames: ReadonlySet<string>,
    opts: { newId?: () => string; model?: string; usedToolCallIds?: readonly string[]; predictor?: StatePredictor | null } = {},
  ) {
    this.newId = opts.newId ?? randomUUID;
    this.predictor = opts.predictor ?? null;
    this.model = opts.model;
    // Ids an earlier execution of the run put on the wire: a repeated step's calls get new ones.
    for (const id of opts.usedToolCallIds ?? []) this.wireIds.add(id);
  }

  /** Token usage summed over the steps that finished. */
  get totalUsage(): TokenUsage {
    return { ...this.usage };
  }

  /** The answer's text so far, every step's joined. */
  get answerText(): string {
    return this.answerDeltas.join("");
  }

  /** The provider error the stream reported, if any; the run fails with it. */
  get error(): unknown {
    return this.failure;
  }

  /** The id the client saw for a provider's tool call, and the assistant message it belongs to. */
  callOnWire(toolCallId: string): { wireId: string; parentId: string } | undefined {
    const call = this.toolCalls.get(toolCallId);
    return call ? { wireId: call.wireId, parentId: call.parentId } : undefined;
  }

  /** Which assistant message a call (by its id on the wire) belongs to. */
  parentOfWireCall(wireId: string): string | undefined {
    for (const call of this.toolCalls.values()) if (call.wireId === wireId) return call.parentId;
    return undefined;
  }

  accept(part: AgentStreamPart): void {
    switch (part.type) {
      case "start-step":
        this.step++;
        this.stepMessageId = null;
        this.stepSpan = startStepSpan(this.model);
        return;
      case "finish-step":
        this.stepMessageId = null;
        this.addUsage(part.usage);
        this.stepSpan?.end(part.usage, part.finishReason);
        this.stepSpan = null;
        return;
      case "text-start":
        this.texts.set(part.id, null);
        return;
      case "text-delta":
        return this.textDelta(part.id, part.text);
      case "text-end":
        return this.textEnd(part.id);
      case "reasoning-start":
        this.reasonings.set(part.id, null);
        return;
      case "reasoning-delta":
        return this.reasoningDelta(part.id, part.text);
      case "reasoning-end":
        return this.reasoningEnd(part.id);
      case "tool-input-start":
        this.toolStart(part.id, part.toolName);
        return;
      case "tool-input-delta": {
        const call = this.toolCalls.get(part.id);
        if (!part.delta || !call || call.ended) return;
        this.emit({ type: EventType.TOOL_CALL_ARGS, toolCallId: call.wireId, delta: part.delta });
        if (call.predicted) this.predictor?.args(call.wireId, part.delta);
        return;
      }
      case "tool-input-end":
        return this.toolEnd(part.id);
      case "tool-call":
        return this.toolCall(part.toolCallId, part.toolName, part.input);
      case "tool-result":
        if (part.preliminary) return;
        return this.toolResult(part.toolCallId, part.toolName, part.input, part.output);
      case "tool-error":
        return this.toolError(part.toolCallId, part.toolName, part.input, part.error);
      case "error":
        this.failure ??= part.error;
        return;
      default:
        return;
    }
  }

  // A count no step reported stays unknown rather than 0.
  private addUsage(u: StepUsage): void {
    this.usage = addUsage(this.usage, knownCounts(u));
  }

  private textDelta(sdkId: string, delta: string): void {
    if (!delta) return;
    let messageId = this.texts.get(sdkId) ?? null;
    if (messageId === null) {
      messageId = `msg_${this.newId()}`;
      this.texts.set(sdkId, messageId);
      this.stepMessageId ??= messageId;
      this.emit({ type: EventType.TEXT_MESSAGE_START, messageId, role: "assistant" });
    }
    this.emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta });
    this.answerDeltas.push(delta);
  }

  private textEnd(sdkId: string): void {
    const messageId = this.texts.get(sdkId);
    this.texts.delete(sdkId);
    if (messageId) this.emit({ type: EventType.TEXT_MESSAGE_END, messageId });
  }

  // One reasoning span holding one reasoning message, both under the message's id (the form
  // AG-UI 1.0's own examples use); opened on the first thought, so empty thinking shows nothing.
  // Its start and end carry their time: how long the model thought reads the same from a replay.
  private reasoningDelta(sdkId: string, delta: string): void {
    if (!delta) return;
    let messageId = this.reasonings.get(sdkId) ?? null;
    if (messageId === null) {
      messageId = `rsn_${this.newId()}`;
      this.reasonings.set(sdkId, messageId);
      const timestamp = Date.now();
      this.emit({ type: EventType.REASONING_START, messageId, timestamp });
      this.emit({ type: EventType.REASONING_MESSAGE_START, messageId, role: "reasoning", timestamp });
    }
    this.emit({ type: EventType.REASONING_MESSAGE_CONTENT, messageId, delta });
  }

  private reasoningEnd(sdkId: string): void {
    const messageId = this.reasonings.get(sdkId);
    this.reasonings.delete(sdkId);
    if (!messageId) return;
    const timestamp = Date.now();
    this.emit({ type: EventType.REASONING_MESSAGE_END, messageId, timestamp });
    this.emit({ type: EventType.REASONING_END, messageId, timestamp });
  }

  private inThisStep(toolCallId: string): ToolCallState | undefined {
    const call = this.toolCalls.get(toolCallId);
    return call?.step === this.step ? call : undefined;
  }

  private toolStart(toolCallId: string, name: string): ToolCallState {
    const existing = this.inThisStep(toolCallId);
    if (existing) return existing;
    let wireId = toolCallId;
    for (let n = 2; this.wireIds.has(wireId); n++) wireId = `${toolCallId}_${n}`;
    this.wireIds.add(wireId);
    this.stepMessageId ??= `msg_${this.newId()}`;
    const predicted = this.predictor?.start(wireId, name) ?? false;
    const call: ToolCallState = { wireId, name, step: this.step, ended: false, answered: false, parentId: this.stepMessageId, predicted };
    this.toolCalls.set(toolCallId, call);
    this.emit({ type: EventType.TOOL_CALL_START, toolCallId: wireId, toolCallName: name, parentMessageId: this.stepMessageId });
    return call;
  }

  private toolEnd(toolCallId: string): void {
    const call = this.toolCalls.get(toolCallId);
    if (!call || call.ended) return;
    call.ended = true;
    this.emit({ type: EventType.TOOL_CALL_END, toolCallId: call.wireId });
  }

  // Providers that do not stream arguments only report the finished call.
  private toolCall(toolCallId: string, name: string, input: unknown): void {
    if (!this.inThisStep(toolCallId)) {
      const call = this.toolStart(toolCallId, name);
      this.emit({ type: EventType.TOOL_CALL_ARGS, toolCallId: call.wireId, delta: JSON.stringify(input ?? {}) });
    }
    this.toolEnd(toolCallId);
    const call = this.toolCalls.get(toolCallId);
    if (call?.predicted) this.predictor?.settle(call.wireId, input);
  }

  private answer(toolCallId: string, name: string, content: string, uiSchema: ToolOutcome["uiSchema"], messageMetadata: Record<string, unknown>): void {
    if (!this.toolCalls.has(toolCallId)) this.toolCall(toolCallId, name, {});
    this.toolEnd(toolCallId);
    const call = this.toolCalls.get(toolCallId)!;
    if (call.answered) return;
    call.answered = true;
    this.emit(
      { type: EventType.TOOL_CALL_RESULT, messageId: `tool_${this.newId()}`, toolCallId: call.wireId, content, role: "tool", metadata: { ui_schema: uiSchema } },
      { messageMetadata: { ...messageMetadata, parent_message_id: call.parentId } },
    );
  }

  private toolResult(toolCallId: string, name: string, input: unknown, output: unknown): void {
    const outcome = toolOutcomeSchema.safeParse(output);
    if (!outcome.success) {
      this.answer(toolCallId, name, toolFailureText("TOOL_OUTPUT_INVALID", "The tool returned an unreadable result"), null, {
        tool_name: name,
        tool_call_args: input,
      });
      return;
    }
    const { toolResponseText, uiSchema, output: agentOutput } = outcome.data;
    const metadata = agentOutput ? { tool_name: name, tool_agent_output: agentOutput } : { tool_name: name, tool_call_args: input };
    this.answer(toolCallId, name, toolResponseText, uiSchema, metadata);
  }

  // The SDK could not run the call (unparsable arguments, a tool that does not exist): the
  // model receives the SDK's error text and may correct itself; the client gets a result too.
  private toolError(toolCallId: string, name: string, input: unknown, error: unknown): void {
    const message = error instanceof Error ? error.name : "ToolError";
    const known = this.serverToolNames.has(name);
    const text = toolFailureText(known ? "INVALID_TOOL_CALL" : "UNKNOWN_TOOL", known ? `${name} could not be called (${message})` : `There is no tool named ${name}`);
    const call = this.toolCalls.get(toolCallId);
    if (call?.predicted) this.predictor?.fail(call.wireId);
    this.answer(toolCallId, name, text, null, { tool_name: name, tool_call_args: input });
  }
}
