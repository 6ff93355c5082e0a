import "server-only";
import { AISDKError, APICallError, generateText, jsonSchema, streamText, tool, type FinishReason, type LanguageModelUsage, type ModelMessage, type ToolSet } from "ai";
import { DEFAULT_TIME_ZONE } from "../../../lib/time";
import { MODEL_MAX_RETRIES } from "../../../models/constants";
import { currentModelInfo, findModel } from "../../../models/catalog";
import { createAgentModel } from "../../../models/provider";
import { logger } from "../../../logger";
import {
  UPSTREAM_ERROR_STATUS,
  type HostApiParsedRequest,
  type ModelToolCall,
} from "../../../protocols/runner/host-api";
import type { JsonHandler, StreamHandler } from "../call";
import { HostApiFailure } from "../failure";
import type { RunSession } from "../session";
import { describeBudgetRefusal, tokenBudgetRefusal } from "../../../usage/budgets";

// models/*: the host's configured models (server/models/catalog.ts: OpenAI-compatible servers,
// OpenAI or the offline demo model), those the run's grant names. Tools the runner passes are declared to the model without an execute function, so
// a tool call ends the generation and goes back to the runner; the host never runs them.

type ModelRequest = HostApiParsedRequest<"models/invoke">;

function configuredModel(modelId: string) {
  if (!findModel(modelId)) throw new HostApiFailure("not_found", `Model ${modelId} is not configured on this host`);
  return createAgentModel({ now: () => new Date(), timeZone: DEFAULT_TIME_ZONE, modelId });
}

function toSdkMessages(messages: ModelRequest["messages"]): ModelMessage[] {
  const callNames = new Map<string, string>();
  return messages.map((m, i): ModelMessage => {
    switch (m.role) {
      case "system":
        return { role: "system", content: m.content };
      case "user":
        return { role: "user", content: typeof m.content === "string" ? m.content : m.content.map((p) => ({ type: "text" as const, text: p.text })) };
      case "assistant": {
        for (const c of m.tool_calls ?? []) callNames.set(c.id, c.name);
        return {
          role: "assistant",
          content: [
            ...(m.content ? [{ type: "text" as const, text: m.content }] : []),
            ...(m.tool_calls ?? []).map((c) => ({ type: "tool-call" as const, toolCallId: c.id, toolName: c.name, input: c.arguments })),
          ],
        };
      }
      case "tool": {
        const toolName = m.name ?? callNames.get(m.tool_call_id);
        if (!toolName) throw new HostApiFailure("invalid_argument", `messages.${i}: no earlier assistant tool call has id ${m.tool_call_id}; give its name`);
        return { role: "tool", content: [{ type: "tool-result", toolCallId: m.tool_call_id, toolName, output: { type: "text", value: m.content } }] };
      }
    }
  });
}

function toSdkTools(tools: ModelRequest["tools"]): ToolSet | undefined {
  if (!tools?.length) return undefined;
  return Object.fromEntries(tools.map((t) => [t.name, tool({ description: t.description, inputSchema: jsonSchema(t.parameters), strict: false })]));
}

function settings(req: ModelRequest, signal: AbortSignal) {
  const { model } = configuredModel(req.model_id);
  const x = req.extra_args ?? {};
  return {
    model,
    messages: toSdkMessages(req.messages),
    allowSystemInMessages: true,
    tools: toSdkTools(req.tools),
    abortSignal: signal,
    maxRetries: MODEL_MAX_RETRIES,
    temperature: x.temperature,
    topP: x.top_p,
    maxOutputTokens: x.max_tokens,
    stopSequences: x.stop,
    seed: x.seed,
  };
}

const FINISH: Partial<Record<FinishReason, "stop" | "length" | "tool_calls" | "content_filter" | "error">> = {
  stop: "stop",
  length: "length",
  "tool-calls": "tool_calls",
  "content-filter": "content_filter",
  error: "error",
};

const usageOf = (u: LanguageModelUsage | undefined) => {
  const input = u?.inputTokens ?? 0;
  const output = u?.outputTokens ?? 0;
  return { input_tokens: input, output_tokens: output, total_tokens: u?.totalTokens ?? input + output };
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const toolCallOf = (c: { toolCallId: string; toolName: string; input: unknown }): ModelToolCall => ({
  id: c.toolCallId,
  name: c.toolName,
  arguments: isRecord(c.input) ? c.input : {},
});

/** A provider failure as the runner sees it: retryable, with the provider's status and no headers or body. */
function providerFailure(err: unknown, signal: AbortSignal): unknown {
  if (signal.aborted || !AISDKError.isInstance(err)) return err;
  const status = APICallError.isInstance(err) ? err.statusCode : undefined;
  logger.warn({ provider: currentModelInfo().provider, status, error: err.name }, "runner model call failed");
  return new HostApiFailure("runtime_error", `The model call failed${status ? ` (HTTP ${status})` : ""}`, {
    status: UPSTREAM_ERROR_STATUS,
    retryable: true,
    details: status ? { provider_status: status } : {},
  });
}

/** A run whose user (or API key) has used up the day's tokens gets no more model calls: rate_limited. */
async function withinTokenBudget(session: RunSession): Promise<void> {
  const refusal = await tokenBudgetRefusal({ userId: session.userId, apiKeyId: session.apiKeyId });
  if (!refusal) return;
  throw new HostApiFailure("rate_limited", describeBudgetRefusal(refusal), {
    details: { limit: refusal.limit, scope: refusal.scope, max: refusal.max, used: refusal.used, retry_after_ms: refusal.retryAfterSeconds * 1000, resets_at: refusal.resetsAt },
  });
}

export const invokeModel: JsonHandler<"models/invoke"> = async ({ params, signal, session }) => {
  await withinTokenBudget(session);
  try {
    const result = await generateText(settings(params, signal));
    return {
      model_id: params.model_id,
      message: { role: "assistant", content: result.text, tool_calls: result.toolCalls.map(toolCallOf) },
      finish_reason: FINISH[result.finishReason] ?? "other",
      usage: usageOf(result.totalUsage),
    };
  } catch (err) {
    throw providerFailure(err, signal);
  }
};

export const streamModel: StreamHandler<"models/stream"> = async function* ({ params, signal, session }) {
  await withinTokenBudget(session);
  const result = streamText({ ...settings(params, signal), onError: () => {} });
  let text = "";
  const calls: ModelToolCall[] = [];
  try {
    for await (const part of result.stream) {
      if (part.type === "text-delta") {
        text += part.text;
        yield { type: "delta", content: part.text };
      } else if (part.type === "tool-call") {
        const call = toolCallOf(part);
        calls.push(call);
        yield { type: "tool_call", tool_call: call };
      } else if (part.type === "error") {
        throw part.error;
      } else if (part.type === "abort") {
        throw signal.reason ?? new Error("The model stream was aborted");
      } else if (part.type === "finish") {
        yield {
          type: "final",
          model_id: params.model_id,
          message: { role: "assistant", content: text, tool_calls: calls },
          finish_reason: FINISH[part.finishReason] ?? "other",
          usage: usageOf(part.totalUsage),
        };
      }
    }
  } catch (err) {
    throw providerFailure(err, signal);
  }
};
