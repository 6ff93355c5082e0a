// Model settings shared by the built-in agent and the runners' model API.

/** Retries of a failed model call (rate limits, brief outages) before the call fails. */
export const MODEL_MAX_RETRIES = 1;

/** Default OpenAI model when only OPENAI_API_KEY is set: small, fast and tool-capable. */
export const DEFAULT_OPENAI_MODEL = "gpt-5.4-mini";

export const DEMO_MODEL_ID = "dispatch-demo";
