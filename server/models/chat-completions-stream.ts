import "server-only";
import http from "node:http";
import https from "node:https";
import { StringDecoder } from "node:string_decoder";
import { APICallError, InvalidResponseDataError, type LanguageModelV4CallOptions, type LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { convertOpenAICompatibleChatUsage, convertToOpenAICompatibleChatMessages, mapOpenAICompatibleFinishReason, prepareTools } from "@ai-sdk/openai-compatible/internal";
import { StreamingToolCallTracker, generateId } from "@ai-sdk/provider-utils";
import { queueStreamWork } from "./stream-slices";
import type { StepStream, StepStreamer } from "./step-stream";

// The agent's hot path to an OpenAI-compatible server (vLLM, Ollama, LM Studio, the bench's
// fake model): one keep-alive node:http request per model step, the SSE body parsed as it
// arrives and pushed to the loop without a promise per part, a network read at a time in stream
// slices (stream-slices.ts beside this file). The request is built and the tool-call
// deltas are tracked by the AI SDK's own openai-compatible pieces, so the server sees what
// the SDK provider would send and tool calls are assembled the same way; what this replaces
// is the provider's response chain (fetch body -> TextDecoderStream -> event-source parser ->
// zod validation of every chunk -> TransformStream), several times the CPU of this reader per
// answer (bench/history/2026-11-earlier-rounds.md). Chunks are still checked: a chunk that is
// not JSON or not shaped like a completion chunk is a stream error, as with the SDK.

export type ChatCompletionsConfig = { baseURL: string; apiKey?: string; modelId: string };

const MAX_ERROR_BODY_BYTES = 64 * 1024;
const keepAlive = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

type ToolCallDelta = { index?: number | null; id?: string | null; type?: string | null; function?: { name?: string | null; arguments?: string | null } | null };
type Chunk = {
  error?: unknown;
  choices?: {
    delta?: { content?: unknown; refusal?: unknown; reasoning_content?: unknown; reasoning?: unknown; tool_calls?: ToolCallDelta[] | null } | null;
    finish_reason?: string | null;
  }[];
  usage?: Parameters<typeof convertOpenAICompatibleChatUsage>[0];
};

function requestBody(config: ChatCompletionsConfig, options: LanguageModelV4CallOptions): string {
  const { tools, toolChoice } = prepareTools({ tools: options.tools, toolChoice: options.toolChoice });
  return JSON.stringify({
    model: config.modelId,
    max_tokens: options.maxOutputTokens,
    temperature: options.temperature,
    top_p: options.topP,
    frequency_penalty: options.frequencyPenalty,
    presence_penalty: options.presencePenalty,
    stop: options.stopSequences,
    seed: options.seed,
    messages: convertToOpenAICompatibleChatMessages(options.prompt),
    tools,
    tool_choice: toolChoice,
    stream: true,
    stream_options: { include_usage: true },
  });
}

// Like the SDK: rate limits, conflicts, timeouts and server errors are worth a retry.
const retryable = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

function errorMessage(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof parsed.error === "string" ? parsed.error : (parsed.error?.message ?? parsed.message);
    if (typeof message === "string" && message) return message;
  } catch {
    // not JSON: the status says enough
  }
  return `The model server answered HTTP ${status}`;
}

/** Only the delta shapes the loop reads are checked; everything else in a chunk is ignored. */
function isChunk(value: unknown): value is Chunk {
  if (typeof value !== "object" || value === null) return false;
  const chunk = value as Chunk;
  if (chunk.error !== undefined) return true;
  if (!Array.isArray(chunk.choices)) return false;
  const delta = chunk.choices[0]?.delta;
  if (delta === undefined || delta === null) return true;
  if (typeof delta !== "object") return false;
  if (delta.tool_calls !== undefined && delta.tool_calls !== null && !Array.isArray(delta.tool_calls)) return false;
  return true;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const part of content as { type?: unknown; text?: unknown }[]) if (part?.type === "text" && typeof part.text === "string") text += part.text;
  return text;
}

/** Turns chunks into the provider stream parts the loop reads (the openai-compatible provider's semantics). */
class ChunkReader {
  private textOpen = false;
  private reasoningOpen = false;
  private finishReason: string | null = null;
  private usage: Chunk["usage"] = undefined;
  private failed = false;
  private readonly tracker: StreamingToolCallTracker;
  // Deltas of a call whose name has not arrived yet (some servers send the id first).
  private readonly pending = new Map<number, { id: string | null; args: string }>();
  private readonly forwarded = new Set<number>();

  constructor(private readonly emit: (part: LanguageModelV4StreamPart) => void) {
    this.tracker = new StreamingToolCallTracker({ enqueue: emit }, { generateId });
  }

  data(data: string): void {
    if (data === "[DONE]") return;
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch (cause) {
      return this.fail(new InvalidResponseDataError({ data, message: `The model server sent a chunk that is not JSON: ${(cause as Error).message}` }));
    }
    if (!isChunk(value)) return this.fail(new InvalidResponseDataError({ data: value, message: "The model server sent a chunk that is not a chat completion chunk" }));
    if (value.error !== undefined) return this.fail(value.error);
    if (value.usage) this.usage = value.usage;
    const choice = value.choices?.[0];
    if (!choice) return;
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    const delta = choice.delta;
    if (!delta) return;
    // The model's thinking: vLLM, DeepSeek and LM Studio name it reasoning_content, OpenRouter and
    // Ollama reasoning (the openai-compatible provider reads both the same way).
    const reasoning = typeof delta.reasoning_content === "string" ? delta.reasoning_content : typeof delta.reasoning === "string" ? delta.reasoning : "";
    if (reasoning) {
      if (!this.reasoningOpen) {
        this.reasoningOpen = true;
        this.emit({ type: "reasoning-start", id: "reasoning-0" });
      }
      this.emit({ type: "reasoning-delta", id: "reasoning-0", delta: reasoning });
    }
    const text = textOf(delta.content) + (typeof delta.refusal === "string" ? delta.refusal : "");
    if (text || delta.tool_calls?.length) this.endReasoning();
    if (text) {
      if (!this.textOpen) {
        this.textOpen = true;
        this.emit({ type: "text-start", id: "txt-0" });
      }
      this.emit({ type: "text-delta", id: "txt-0", delta: text });
    }
    if (delta.tool_calls) for (const call of delta.tool_calls) this.toolCallDelta(call);
  }

  private toolCallDelta(delta: ToolCallDelta): void {
    const index = delta.index;
    if (index === undefined || index === null || this.forwarded.has(index)) return this.tracker.processDelta(delta);
    const pending = this.pending.get(index) ?? { id: null, args: "" };
    pending.id ??= delta.id ?? null;
    if (delta.function?.arguments) pending.args += delta.function.arguments;
    const name = delta.function?.name;
    if (name === undefined || name === null) {
      this.pending.set(index, pending);
      return;
    }
    this.pending.delete(index);
    this.forwarded.add(index);
    this.tracker.processDelta({ index, id: pending.id, function: { name, arguments: pending.args } });
  }

  // Thinking ends where the answer (or a tool call) begins.
  private endReasoning(): void {
    if (!this.reasoningOpen) return;
    this.reasoningOpen = false;
    this.emit({ type: "reasoning-end", id: "reasoning-0" });
  }

  private fail(error: unknown): void {
    this.failed = true;
    this.emit({ type: "error", error });
  }

  end(): void {
    this.endReasoning();
    if (this.textOpen) this.emit({ type: "text-end", id: "txt-0" });
    for (const [index, pending] of this.pending) this.tracker.processDelta({ index, id: pending.id, function: { arguments: pending.args } });
    this.pending.clear();
    this.tracker.flush();
    if (!this.finishReason && !this.failed) {
      this.fail(new InvalidResponseDataError({ data: undefined, message: "Response stream ended without a finish reason." }));
    }
    this.emit({
      type: "finish",
      finishReason: { unified: this.failed ? "error" : mapOpenAICompatibleFinishReason(this.finishReason), raw: this.finishReason ?? undefined },
      usage: convertOpenAICompatibleChatUsage(this.usage),
    });
  }
}

/** Server-sent events: `data:` lines joined per event, events split by a blank line; other fields ignored. */
class SseParser {
  private rest = "";
  private data: string[] = [];

  constructor(private readonly onData: (data: string) => void) {}

  push(text: string): void {
    let input = this.rest + text;
    this.rest = "";
    let start = 0;
    for (;;) {
      const nl = input.indexOf("\n", start);
      if (nl < 0) break;
      let line = input.slice(start, nl);
      if (line.endsWith("\r")) line = line.slice(0, -1);
      start = nl + 1;
      this.line(line);
    }
    input = input.slice(start);
    this.rest = input;
  }

  end(): void {
    if (this.rest) this.line(this.rest.endsWith("\r") ? this.rest.slice(0, -1) : this.rest);
    this.rest = "";
    this.line("");
  }

  private line(line: string): void {
    if (line === "") {
      if (this.data.length > 0) {
        const data = this.data.length === 1 ? this.data[0]! : this.data.join("\n");
        this.data = [];
        this.onData(data);
      }
      return;
    }
    if (line.startsWith("data:")) this.data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
  }
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : Object.assign(new Error("The model call was aborted"), { name: "AbortError" });
}

/** The call's own headers (the run's `traceparent`), those the SDK's options leave undefined dropped. */
function callHeaders(given: Record<string, string | undefined> | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(given ?? {})) if (value !== undefined) headers[name] = value;
  return headers;
}

/** One request's facts the answer's readers need: where it went, for which model, its abort signal, its clean-up. */
type Call = { url: URL; modelId: string; signal: AbortSignal | undefined; done: () => void };

/** An answer that is not a 2xx: its body (bounded) read into the APICallError the SDK would raise. */
function errorAnswer(res: http.IncomingMessage, status: number, call: Call): Promise<never> {
  return new Promise((_, reject) => {
    let text = "";
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      if (text.length < MAX_ERROR_BODY_BYTES) text += chunk;
    });
    res.once("end", () => {
      call.done();
      reject(
        new APICallError({
          message: errorMessage(status, text),
          url: call.url.href,
          requestBodyValues: { model: call.modelId },
          statusCode: status,
          responseBody: text.slice(0, MAX_ERROR_BODY_BYTES),
          isRetryable: retryable(status),
        }),
      );
    });
  });
}

/**
 * Reads the answer's event stream into parts. Each network read is parsed, and its parts emitted,
 * in a stream slice (see stream-slices.ts); the response stays paused until then. The end and an
 * early close queue behind the reads before them.
 */
function readAnswer(res: http.IncomingMessage, emit: Parameters<StepStream["read"]>[0], call: Call): Promise<void> {
  return new Promise<void>((finish, fail) => {
    const reader = new ChunkReader(emit);
    const sse = new SseParser((data) => reader.data(data));
    const decoder = new StringDecoder("utf8");
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      call.done();
      return true;
    };
    res.on("data", (chunk: Buffer) => {
      res.pause();
      queueStreamWork(() => {
        if (settled) return;
        try {
          sse.push(decoder.write(chunk));
        } catch (err) {
          settle();
          res.destroy();
          return fail(err);
        }
        res.resume();
      });
    });
    res.once("end", () =>
      queueStreamWork(() => {
        if (!settle()) return;
        try {
          sse.push(decoder.end());
          sse.end();
          reader.end();
        } catch (err) {
          return fail(err);
        }
        finish();
      }),
    );
    // Closed before its end: the server dropped the connection (or we aborted).
    const early = (cause?: Error) =>
      queueStreamWork(() => {
        if (!settle()) return;
        fail(
          call.signal?.aborted
            ? abortError(call.signal)
            : new APICallError({ message: "The model server closed the stream early", url: call.url.href, requestBodyValues: { model: call.modelId }, cause, isRetryable: true }),
        );
      });
    res.once("error", early);
    res.once("close", () => {
      if (!res.complete) early();
    });
  });
}

/** A streamer for one OpenAI-compatible chat completions endpoint. */
export function createChatCompletionsStreamer(config: ChatCompletionsConfig): StepStreamer {
  const url = new URL(`${config.baseURL.replace(/\/+$/, "")}/chat/completions`);
  const secure = url.protocol === "https:";
  const client = secure ? https : http;
  const agent = secure ? keepAlive.https : keepAlive.http;
  const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;

  return (options) =>
    new Promise<StepStream>((resolve, reject) => {
      const signal = options.abortSignal;
      if (signal?.aborted) return reject(abortError(signal));
      const body = requestBody(config, options);
      const req = client.request(url, { method: "POST", agent, headers: { ...callHeaders(options.headers), ...headers, "content-length": String(Buffer.byteLength(body)) } });
      const onAbort = () => req.destroy(abortError(signal!));
      signal?.addEventListener("abort", onAbort, { once: true });
      const call: Call = { url, modelId: config.modelId, signal, done: () => signal?.removeEventListener("abort", onAbort) };
      req.once("error", (cause: Error) => {
        call.done();
        reject(
          signal?.aborted
            ? abortError(signal)
            : new APICallError({ message: `Cannot reach the model server: ${cause.message}`, url: url.href, requestBodyValues: { model: config.modelId }, cause, isRetryable: true }),
        );
      });
      req.once("response", (res) => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300) return void errorAnswer(res, status, call).catch(reject);
        resolve({
          read: (emit) => readAnswer(res, emit, call),
          cancel: () => {
            call.done();
            req.destroy();
          },
        });
      });
      req.end(body);
    });
}
