import "server-only";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import { env } from "../env";
import { findModel, type ConfiguredModel, type ModelInfo } from "./catalog";
import { createChatCompletionsStreamer } from "./chat-completions-stream";
import { createDemoModel } from "./demo/demo-model";
import type { StepStreamer } from "./step-stream";

// The language model for a run, on the configured models (catalog.ts): any OpenAI-compatible
// server, OpenAI, or the built-in offline demo model.

// Configuration is fixed for the process: each model's provider and reader are made once.
const made = new Map<string, { model: LanguageModel; streamer?: StepStreamer }>();

function networkModel(config: ConfiguredModel): { model: LanguageModel; streamer?: StepStreamer } {
  let entry = made.get(config.id);
  if (!entry) {
    entry =
      config.provider === "openai-compatible"
        ? {
            model: createOpenAICompatible({ name: "llm", baseURL: config.baseUrl!, apiKey: config.apiKey, includeUsage: true }).chatModel(config.id),
            streamer: createChatCompletionsStreamer({ baseURL: config.baseUrl!, apiKey: config.apiKey, modelId: config.id }),
          }
        : { model: createOpenAI({ apiKey: config.apiKey })(config.id) };
    made.set(config.id, entry);
  }
  return entry;
}

/**
 * The language model for one run: `modelId` when given (a configured model's id, checked when the
 * run was accepted), else the default; the demo model needs the run's clock and time zone. The
 * agent's loop streams an OpenAI-compatible server through `streamer` (the lean reader); `model`
 * is the SDK provider for everything else (non-streaming calls, runners' model API).
 */
export function createAgentModel(opts: { now: () => Date; timeZone: string; modelId?: string }): {
  model: LanguageModel;
  info: ModelInfo;
  streamer?: StepStreamer;
  /** The document types the model takes as file parts. */
  fileTypes: readonly string[];
} {
  const config = findModel(opts.modelId) ?? findModel()!;
  const info: ModelInfo = { id: config.id, provider: config.provider, label: config.label, offline: config.offline };
  if (config.provider === "demo") return { model: createDemoModel({ now: opts.now, timeZone: opts.timeZone, delayMs: env.DEMO_MODEL_DELAY_MS }), info, fileTypes: config.fileTypes };
  return { ...networkModel(config), info, fileTypes: config.fileTypes };
}
