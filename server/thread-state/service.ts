import "server-only";
import type { RunAgentInput } from "../protocols/ag-ui/run-input";
import { sendsState } from "../protocols/ag-ui/state-rules";
import { findOwnedThreadState } from "./repository";

// A thread's shared state across runs (docs/ag-ui.md, "Shared state"): a request's non-empty
// `state` replaces what the thread kept; a request without one (absent, null or {}) continues from
// it. What a run leaves is kept at its end (server/runs/state-keeper.ts).

/** A kept state that holds something, else null. */
export const nonEmptyState = (state: Record<string, unknown> | null): Record<string, unknown> | null => (state && Object.keys(state).length > 0 ? state : null);

/**
 * The run's input with the state it starts from: the client's, else the thread's kept state
 * (`kept` when the caller read it already with the thread, else read here).
 */
export async function withKeptState(input: RunAgentInput, userId: string, kept?: Record<string, unknown> | null): Promise<RunAgentInput> {
  if (sendsState(input.state)) return input;
  const state = kept !== undefined ? kept : await keptState({ userId, threadId: input.threadId });
  return state ? { ...input, state, stateFromThread: true } : input;
}

/** The state the user's thread keeps (by its id), or null when it keeps none. */
export async function keptState({ userId, threadId }: { userId: string; threadId: string }): Promise<Record<string, unknown> | null> {
  return nonEmptyState(await findOwnedThreadState({ userId, threadId }));
}
