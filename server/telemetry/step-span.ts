import "server-only";
import { SpanKind } from "@opentelemetry/api";
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
} from "@opentelemetry/semantic-conventions/incubating";
import { tracer } from "./tracing";

// One model call of the built-in agent's loop as a GenAI `chat` span: the model, the tokens it
// reported and why it stopped. Its parent is the run's span (the loop runs inside it).

export type StepSpan = { end(usage: { inputTokens?: number; outputTokens?: number; cachedInputTokens?: number }, finishReason?: string): void };

export function startStepSpan(model: string | undefined): StepSpan {
  const span = tracer().startSpan(`chat ${model ?? "model"}`, {
    kind: SpanKind.CLIENT,
    attributes: { [ATTR_GEN_AI_OPERATION_NAME]: "chat", ...(model ? { [ATTR_GEN_AI_REQUEST_MODEL]: model } : {}) },
  });
  return {
    end(usage, finishReason) {
      if (typeof usage.inputTokens === "number") span.setAttribute(ATTR_GEN_AI_USAGE_INPUT_TOKENS, usage.inputTokens);
      if (typeof usage.outputTokens === "number") span.setAttribute(ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, usage.outputTokens);
      if (typeof usage.cachedInputTokens === "number") span.setAttribute(ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, usage.cachedInputTokens);
      if (finishReason) span.setAttribute(ATTR_GEN_AI_RESPONSE_FINISH_REASONS, [finishReason]);
      span.end();
    },
  };
}
