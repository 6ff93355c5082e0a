import "server-only";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import { z } from "zod";
import { env } from "../env";
import { DEFAULT_OPENAI_MODEL, DEMO_MODEL_ID } from "./constants";
import { createChatCompletionsStreamer } from "./chat-completions-stream";
import { createDemoModel } from "./demo/demo-model";
import type { StepStreamer } from "./step-stream";

// Which model the agent runs on, from configuration alone: any OpenAI-compatible server
// (LLM_BASE_URL + LLM_MODEL, with LLM_API_KEY when it needs one), else OpenAI
// (OPENAI_API_KEY, LLM_MODEL optional), else the built-in offline demo model.

export const modelInfoSchema = z.object({
  id: z.string().describe("Model id as the provider knows it"),
  provider: z.enum(["openai-compatible", "openai", "demo"]).describe("Where the model runs"),
  label: z.string().describe("Human-readable name for the UI"),
  offline: z.boolean().describe("True for the built-in demo model, which needs no network or key"),
});
export type ModelInfo = z.infer<typeof modelInfoSchema>;

export function currentModelInfo(): ModelInfo {
  if (env.LLM_BASE_URL && env.LLM_MODEL) {
    return { id: env.LLM_MODEL, provider: "openai-compatible", label: `${env.LLM_MODEL} (OpenAI-compatible server)`, offline: false };
  }
  if (env.OPENAI_API_KEY) {
    const id = env.LLM_MODEL ?? DEFAULT_OPENAI_MODEL;
    return { id, provider: "openai", label: `${id} (OpenAI)`, offline: false };
  }
  return { id: DEMO_MODEL_ID, provider: "demo", label: "Offline demo model", offline: true };
}

let compatible: { model: LanguageModel; streamer: StepStreamer } | null = null;
let openai: LanguageModel | null = null;

/**
 * The language model for one run; the demo model needs the run's clock and time zone. The
 * agent's loop streams an OpenAI-compatible server through `streamer` (the lean reader);
 * `model` is the SDK provider for everything else (non-streaming calls, runners' model API).
 */
export function createAgentModel(opts: { now: () => Date; timeZone: string }): { model: LanguageModel; info: ModelInfo; streamer?: StepStreamer } {
  const info = currentModelInfo();
  switch (info.provider) {
    case "openai-compatible": {
      // Configuration is fixed for the process: the provider and the reader are made once.
      compatible ??= {
        model: createOpenAICompatible({ name: "llm", baseURL: env.LLM_BASE_URL!, apiKey: env.LLM_API_KEY, includeUsage: true }).chatModel(info.id),
        streamer: createChatCompletionsStreamer({ baseURL: env.LLM_BASE_URL!, apiKey: env.LLM_API_KEY, modelId: info.id }),
      };
      return { ...compatible, info };
    }
    case "openai":
      openai ??= createOpenAI({ apiKey: env.OPENAI_API_KEY })(info.id);
      return { model: openai, info };
    case "demo":
      return { model: createDemoModel({ now: opts.now, timeZone: opts.timeZone, delayMs: env.DEMO_MODEL_DELAY_MS }), info };
  }
}
