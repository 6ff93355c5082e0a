// The built-in agent's limits, in one place so they are reviewed together.

/** Model calls per run: each tool round trip costs one, and the final answer another. */
export const MAX_AGENT_STEPS = 7;

/** Persisted thread messages replayed to the model as the conversation so far. */
export const HISTORY_MESSAGE_LIMIT = 20;

/** Memory facts put in the system prompt, most recently updated first. */
export const MEMORY_FACT_LIMIT = 50;
