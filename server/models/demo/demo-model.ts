import "server-only";
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import { randomUUID } from "node:crypto";
import { DEMO_MODEL_ID } from "../constants";
import { planDemoTurn, type DemoAction, type DemoExchange, type ProjectCliArgs } from "./demo-planner";
import { STATE_TOOL_NAME, withPlan, type PlanAction } from "./demo-plan";

// The offline demo model: an AI SDK language model (specification v4) with no network and
// no weights. It reads the request and this turn's tool results from the prompt, asks the
// planner what to do, and streams that as a real model would: small text chunks, or a
// project_cli call whose arguments arrive in pieces.

const TOOL_NAME = "project_cli";
const ARGS_CHUNK = 24;

export type DemoModelOptions = { now: () => Date; timeZone: string; delayMs: number };

function textOf(parts: readonly { type: string; text?: string }[] | string): string {
  if (typeof parts === "string") return parts;
  return parts.map((p) => (p.type === "text" ? p.text ?? "" : "")).join("");
}

function asArgs(input: unknown): ProjectCliArgs | null {
  const value = typeof input === "string" ? safeJson(input) : input;
  if (typeof value !== "object" || value === null) return null;
  const { module, method, input: inner } = value as Record<string, unknown>;
  if (typeof module !== "string" || typeof method !== "string" || typeof inner !== "object" || inner === null) return null;
  return { module, method, input: inner as Record<string, unknown> };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function imagesIn(parts: readonly { type: string; mediaType?: string }[] | string): number {
  if (typeof parts === "string") return 0;
  return parts.filter((p) => p.type === "file" && p.mediaType?.startsWith("image/")).length;
}

/** The latest user request (its text and how many images it carries) and the project_cli calls and results that followed it. */
export function readTurn(prompt: LanguageModelV4Prompt): { userText: string; images: number; turn: DemoExchange[] } {
  const lastUser = prompt.findLastIndex((m) => m.role === "user");
  const userContent = lastUser >= 0 ? (prompt[lastUser]!.content as { type: string; text?: string; mediaType?: string }[]) : [];
  const userText = textOf(userContent);
  const images = imagesIn(userContent);
  const calls = new Map<string, ProjectCliArgs | null>();
  const turn: DemoExchange[] = [];
  for (const message of prompt.slice(lastUser + 1)) {
    if (message.role === "assistant") {
      for (const part of message.content) if (part.type === "tool-call" && part.toolName === TOOL_NAME) calls.set(part.toolCallId, asArgs(part.input));
    } else if (message.role === "tool") {
      for (const part of message.content) {
        if (part.type !== "tool-result" || !calls.has(part.toolCallId)) continue;
        const o = part.output;
        const output = o.type === "text" || o.type === "error-text" ? o.value : o.type === "json" || o.type === "error-json" ? JSON.stringify(o.value) : "";
        turn.push({ args: calls.get(part.toolCallId) ?? null, output });
      }
    }
  }
  return { userText, images, turn };
}

function usageOf(prompt: LanguageModelV4Prompt, outputTokens: number): LanguageModelV4Usage {
  const inputTokens = Math.ceil(JSON.stringify(prompt).length / 4);
  return {
    inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: undefined },
  };
}

type Action = DemoAction | PlanAction;

function decide(options: LanguageModelV4CallOptions, opts: DemoModelOptions): Action {
  const { userText, images, turn } = readTurn(options.prompt);
  const action = planDemoTurn({ userText, images, turn, now: opts.now(), timeZone: opts.timeZone });
  const offered = (name: string) => (options.tools?.some((t) => t.name === name) ?? false) && options.toolChoice?.type !== "none";
  if (action.type === "tool" && !offered(TOOL_NAME)) return { type: "text", text: "I would need my project_cli tool for that, and it is not available right now." };
  return withPlan(action, options.prompt, offered(STATE_TOOL_NAME));
}

/** A call action as the tool it calls and its arguments. */
const callOf = (action: Exclude<Action, { type: "text" }>) =>
  action.type === "state" ? { toolName: STATE_TOOL_NAME, json: JSON.stringify({ operations: action.operations }) } : { toolName: TOOL_NAME, json: JSON.stringify(action.args) };

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0) return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => {
    // One listener per pause, removed when the pause ends, so a long answer does not pile them up.
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function abortError(): Error {
  return Object.assign(new Error("The demo model call was aborted"), { name: "AbortError" });
}

async function* streamAction(action: Action, options: LanguageModelV4CallOptions, delayMs: number): AsyncGenerator<LanguageModelV4StreamPart> {
  const signal = options.abortSignal;
  const step = async () => {
    await pause(delayMs, signal);
    if (signal?.aborted) throw abortError();
  };
  yield { type: "stream-start", warnings: [] };
  let chunks = 0;
  let finishReason: LanguageModelV4FinishReason;
  if (action.type === "text") {
    yield { type: "text-start", id: "text-0" };
    for (const delta of action.text.split(/(?<=\s)/)) {
      await step();
      chunks++;
      yield { type: "text-delta", id: "text-0", delta };
    }
    yield { type: "text-end", id: "text-0" };
    finishReason = { unified: "stop", raw: "stop" };
  } else {
    const id = `call_${randomUUID()}`;
    const { toolName, json } = callOf(action);
    yield { type: "tool-input-start", id, toolName };
    for (let i = 0; i < json.length; i += ARGS_CHUNK) {
      await step();
      chunks++;
      yield { type: "tool-input-delta", id, delta: json.slice(i, i + ARGS_CHUNK) };
    }
    yield { type: "tool-input-end", id };
    yield { type: "tool-call", toolCallId: id, toolName, input: json };
    finishReason = { unified: "tool-calls", raw: "tool_calls" };
  }
  yield { type: "finish", finishReason, usage: usageOf(options.prompt, chunks) };
}

function toReadable<T>(source: AsyncGenerator<T>): ReadableStream<T> {
  return new ReadableStream<T>({
    async pull(controller) {
      try {
        const { value, done } = await source.next();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (err) {
        controller.error(err);
      }
    },
    async cancel() {
      await source.return(undefined);
    },
  });
}

export function createDemoModel(opts: DemoModelOptions): LanguageModelV4 {
  return {
    specificationVersion: "v4",
    provider: "dispatch.demo",
    modelId: DEMO_MODEL_ID,
    supportedUrls: {},
    async doGenerate(options) {
      const action = decide(options, opts);
      const content: LanguageModelV4Content[] =
        action.type === "text"
          ? [{ type: "text", text: action.text }]
          : [{ type: "tool-call", toolCallId: `call_${randomUUID()}`, toolName: callOf(action).toolName, input: callOf(action).json }];
      return {
        content,
        finishReason: action.type === "text" ? { unified: "stop", raw: "stop" } : { unified: "tool-calls", raw: "tool_calls" },
        usage: usageOf(options.prompt, action.type === "text" ? action.text.split(/\s+/).length : 1),
        warnings: [],
      };
    },
    async doStream(options) {
      return { stream: toReadable(streamAction(decide(options, opts), options, opts.delayMs)) };
    },
  };
}
