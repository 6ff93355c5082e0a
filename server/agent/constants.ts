// The built-in agent's limits, in one place so they are reviewed together.

/** The built-in agent is a runner like any other, with a protocol id (plugin:author/name/runner). */
export const AGENT_RUNNER_ID = "plugin:dispatch/builtin/agent";

/** Model calls per run: each tool round trip costs one, and the final answer another. */
export const MAX_AGENT_STEPS = 7;

/** Retries of a failed model call (rate limits, brief outages) before the run fails. */
export const MODEL_MAX_RETRIES = 1;

/** Persisted thread messages replayed to the model as the conversation so far. */
export const HISTORY_MESSAGE_LIMIT = 20;

/** Memory facts put in the system prompt, most recently updated first. */
export const MEMORY_FACT_LIMIT = 50;

/** Default OpenAI model when only OPENAI_API_KEY is set: small, fast and tool-capable. */
export const DEFAULT_OPENAI_MODEL = "gpt-5.4-mini";

export const DEMO_MODEL_ID = "dispatch-demo";

/** Time zone of a run whose client names none. */
export const DEFAULT_TIME_ZONE = "UTC";
