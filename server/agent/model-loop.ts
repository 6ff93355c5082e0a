import "server-only";
import type { LanguageModelV4StreamPart, LanguageModelV4ToolCall, SharedV4ProviderMetadata } from "@ai-sdk/provider";
import type { AssistantContent, LanguageModel, ModelMessage, ToolContent, ToolSet } from "ai";
import {
  asLanguageModelUsage,
  convertToLanguageModelPrompt,
  createToolModelOutput,
  parseToolCall,
  prepareLanguageModelCallOptions,
  prepareRetries,
  prepareToolChoice,
  prepareTools,
  resolveLanguageModel,
  standardizePrompt,
} from "ai/internal";
import { sdkStepStreamer, type StepStreamer } from "../models/step-stream";
import { traceHeaders } from "../telemetry/tracing";

// The agent's tool loop, driven on the provider's own stream (a StepStreamer: the model's
// doStream, or the lean OpenAI-compatible reader) rather than through streamText, whose chain
// of web streams and per-part promises was most of a run's CPU (bench/history/2026-11-earlier-rounds.md), so parts
// are pushed to the loop, not awaited one by one.
// The pieces that carry meaning are the SDK's own (prompt conversion, tool preparation,
// tool-call parsing and its errors, tool output for the model, retries, usage), so the
// model sees exactly what streamText would have sent it.

export type StepUsage = {
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  totalTokens: number | undefined;
  cachedInputTokens?: number | undefined;
  reasoningTokens?: number | undefined;
};

/** What the loop reports, in order; a subset of streamText's parts, with the same meaning. */
export type AgentStreamPart =
  | { type: "start-step" }
  | { type: "finish-step"; usage: StepUsage; finishReason?: string }
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; text: string }
  | { type: "text-end"; id: string }
  | { type: "reasoning-start"; id: string }
  | { type: "reasoning-delta"; id: string; text: string }
  | { type: "reasoning-end"; id: string }
  | { type: "tool-input-start"; id: string; toolName: string }
  | { type: "tool-input-delta"; id: string; delta: string }
  | { type: "tool-input-end"; id: string }
  | { type: "tool-call"; toolCallId: string; toolName: string; input: unknown }
  | { type: "tool-result"; toolCallId: string; toolName: string; input: unknown; output: unknown; preliminary?: boolean }
  | { type: "tool-error"; toolCallId: string; toolName: string; input: unknown; error: unknown }
  | { type: "error"; error: unknown };

export type CallSettings = {
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  stopSequences?: string[];
  seed?: number;
};

/**
 * What a tool's execute returns for a call that must wait (a person's approval): the call is
 * left without an answer, like a client's, and the loop ends after its step.
 */
export const LEFT_OPEN: unique symbol = Symbol("dispatch.tool-call-left-open");

type ParsedCall = { toolCallId: string; toolName: string; input: unknown; invalid?: boolean; error?: unknown };
type Answer = { call: ParsedCall; output: Awaited<ReturnType<typeof createToolModelOutput>> };

/**
 * One model step's stream parts: forwarded to the loop's listener as they come, and kept (text,
 * thinking with what the provider attached to it, tool calls, usage) for the messages that
 * follow the step.
 */
class StepCollector {
  private readonly texts = new Map<string, string>();
  // The step's thinking, with what the provider attached to it (a signature, an encrypted
  // value): handed back with the assistant message on the next step, as streamText does, for
  // providers that require their reasoning returned with the tool results that follow it.
  private readonly reasonings = new Map<string, { text: string; providerOptions?: SharedV4ProviderMetadata }>();
  readonly toolCalls: LanguageModelV4ToolCall[] = [];
  usage: StepUsage = { inputTokens: undefined, outputTokens: undefined, totalTokens: undefined };
  finishReason: string | undefined;

  constructor(private readonly onPart: (part: AgentStreamPart) => void) {}

  take(part: LanguageModelV4StreamPart): void {
    const { onPart } = this;
    switch (part.type) {
      case "text-start":
        this.texts.set(part.id, this.texts.get(part.id) ?? "");
        onPart({ type: "text-start", id: part.id });
        return;
      case "text-delta":
        this.texts.set(part.id, (this.texts.get(part.id) ?? "") + part.delta);
        onPart({ type: "text-delta", id: part.id, text: part.delta });
        return;
      case "text-end":
        onPart({ type: "text-end", id: part.id });
        return;
      case "reasoning-start":
      case "reasoning-delta":
      case "reasoning-end":
        return this.takeReasoning(part);
      case "tool-input-start":
        onPart({ type: "tool-input-start", id: part.id, toolName: part.toolName });
        return;
      case "tool-input-delta":
        onPart({ type: "tool-input-delta", id: part.id, delta: part.delta });
        return;
      case "tool-input-end":
        onPart({ type: "tool-input-end", id: part.id });
        return;
      case "tool-call":
        this.toolCalls.push(part);
        return;
      case "finish": {
        const u = asLanguageModelUsage(part.usage);
        this.usage = {
          inputTokens: u.inputTokens,
          outputTokens: u.outputTokens,
          totalTokens: u.totalTokens,
          cachedInputTokens: u.inputTokenDetails.cacheReadTokens,
          reasoningTokens: u.outputTokenDetails.reasoningTokens,
        };
        this.finishReason = part.finishReason.unified;
        return;
      }
      case "error":
        onPart({ type: "error", error: part.error });
        return;
      default:
        return;
    }
  }

  private takeReasoning(part: Extract<LanguageModelV4StreamPart, { type: "reasoning-start" | "reasoning-delta" | "reasoning-end" }>): void {
    if (part.type === "reasoning-start") {
      this.reasonings.set(part.id, { text: "", providerOptions: part.providerMetadata });
      this.onPart({ type: "reasoning-start", id: part.id });
      return;
    }
    if (part.type === "reasoning-delta") {
      const reasoning = this.reasonings.get(part.id) ?? { text: "" };
      reasoning.text += part.delta;
      if (part.providerMetadata) reasoning.providerOptions = part.providerMetadata;
      this.reasonings.set(part.id, reasoning);
      if (part.delta) this.onPart({ type: "reasoning-delta", id: part.id, text: part.delta });
      return;
    }
    const reasoning = this.reasonings.get(part.id);
    if (reasoning && part.providerMetadata) reasoning.providerOptions = part.providerMetadata;
    this.onPart({ type: "reasoning-end", id: part.id });
  }

  /** The step as the conversation keeps it: the assistant's message, then the answers given here. */
  messagesAfter(calls: ParsedCall[], answered: Answer[]): ModelMessage[] {
    const out: ModelMessage[] = [];
    const content: Exclude<AssistantContent, string> = [];
    for (const { text, providerOptions } of this.reasonings.values()) {
      if (text.length > 0 || providerOptions) content.push({ type: "reasoning", text, ...(providerOptions ? { providerOptions } : {}) });
    }
    for (const text of this.texts.values()) if (text.length > 0) content.push({ type: "text", text });
    for (const call of calls) content.push({ type: "tool-call", toolCallId: call.toolCallId, toolName: call.toolName, input: call.input });
    if (content.length > 0) out.push({ role: "assistant", content });
    if (answered.length > 0) {
      const results: ToolContent = answered.map((a) => ({ type: "tool-result", toolCallId: a.call.toolCallId, toolName: a.call.toolName, output: a.output }));
      out.push({ role: "tool", content: results });
    }
    return out;
  }
}

/**
 * Runs up to `maxSteps` model calls. A step whose tool calls were all answered here (tools
 * with an execute function, or calls the SDK rejected) leads to the next step; a call left
 * for the client (no execute function) or for a person (LEFT_OPEN), a step without tool calls,
 * an error part or `stop()` ends the loop. Aborting `signal` aborts the model call and the tools.
 */
export async function runModelLoop(opts: {
  model: LanguageModel;
  /** How a step reaches the model; the model's own doStream unless given. */
  streamer?: StepStreamer;
  instructions: string;
  messages: ModelMessage[];
  tools: ToolSet;
  maxSteps: number;
  maxRetries: number;
  settings: CallSettings;
  signal: AbortSignal;
  onPart: (part: AgentStreamPart) => void;
  stop: () => boolean;
}): Promise<void> {
  const { tools, signal, onPart } = opts;
  const model = resolveLanguageModel(opts.model);
  const streamer = opts.streamer ?? sdkStepStreamer(model);
  const callOptions = prepareLanguageModelCallOptions(opts.settings);
  const toolDefinitions = await prepareTools({ tools });
  const toolChoice = prepareToolChoice({ toolChoice: undefined });
  const { retry } = prepareRetries({ maxRetries: opts.maxRetries, abortSignal: signal });
  const messages = [...opts.messages];

  for (let step = 0; step < opts.maxSteps; step++) {
    const prompt = await convertToLanguageModelPrompt({
      prompt: await standardizePrompt({ instructions: opts.instructions, messages }),
      supportedUrls: await model.supportedUrls,
      download: undefined,
      abortSignal: signal,
      provider: model.provider,
    });
    onPart({ type: "start-step" });
    // The run's trace goes with each model call (`traceparent`), so a provider's own traces join it.
    const headers = traceHeaders();
    const stream = await retry(() => streamer({ ...callOptions, prompt, tools: toolDefinitions, toolChoice, abortSignal: signal, headers }));

    const collected = new StepCollector(onPart);
    let stopped = false;
    // Parts arrive synchronously, without a promise each; tool calls are parsed (async) once
    // the model's answer has ended, in the order the model made them.
    const emit = (part: LanguageModelV4StreamPart) => {
      if (stopped) return;
      collected.take(part);
      if (opts.stop()) {
        // Ends the provider's stream (and its request): the rest is not worth reading.
        stopped = true;
        stream.cancel();
      }
    };
    try {
      await stream.read(emit);
    } catch (err) {
      if (!stopped) throw err;
    }
    if (stopped) return;

    const calls: ParsedCall[] = [];
    for (const part of collected.toolCalls) {
      const call = await parseCall(part, tools, messages, opts.instructions, signal);
      calls.push(call);
      onPart({ type: "tool-call", toolCallId: call.toolCallId, toolName: call.toolName, input: call.input });
    }

    const answers = await Promise.all(calls.map((call) => answerCall(call, tools, messages, signal, onPart)));
    onPart({ type: "finish-step", usage: collected.usage, finishReason: collected.finishReason });
    if (opts.stop()) return;

    const answered = answers.filter((a): a is Answer => a !== null);
    messages.push(...collected.messagesAfter(calls, answered));
    // The loop goes on only when every call of the step has its answer here.
    if (calls.length === 0 || answered.length < calls.length || signal.aborted) return;
  }
}

async function parseCall(part: LanguageModelV4ToolCall, tools: ToolSet, messages: ModelMessage[], instructions: string, signal: AbortSignal): Promise<ParsedCall> {
  const parsed = (await parseToolCall({ toolCall: part, tools, repairToolCall: undefined, messages, instructions, abortSignal: signal })) as ParsedCall;
  return { toolCallId: parsed.toolCallId, toolName: parsed.toolName, input: parsed.input, invalid: parsed.invalid, error: parsed.error };
}

/** Runs a server-side tool (or reports the SDK's rejection of the call); null for calls left to the client. */
async function answerCall(call: ParsedCall, tools: ToolSet, messages: ModelMessage[], signal: AbortSignal, onPart: (part: AgentStreamPart) => void): Promise<Answer | null> {
  const tool = Object.hasOwn(tools, call.toolName) ? tools[call.toolName] : undefined;
  const fail = async (error: unknown): Promise<Answer> => {
    onPart({ type: "tool-error", toolCallId: call.toolCallId, toolName: call.toolName, input: call.input, error });
    return { call, output: await createToolModelOutput({ toolCallId: call.toolCallId, input: call.input, output: error, tool, errorMode: "text" }) };
  };
  if (call.invalid) return fail(call.error);
  if (!tool?.execute) return null;
  let output: unknown;
  try {
    output = await tool.execute(call.input, { toolCallId: call.toolCallId, messages, abortSignal: signal, context: {} } as never);
  } catch (err) {
    if (signal.aborted) throw err;
    return fail(err);
  }
  if (output === LEFT_OPEN) return null;
  onPart({ type: "tool-result", toolCallId: call.toolCallId, toolName: call.toolName, input: call.input, output });
  return { call, output: await createToolModelOutput({ toolCallId: call.toolCallId, input: call.input, output, tool, errorMode: "none" }) };
}
