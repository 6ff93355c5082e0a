// Result helpers: what a runner yields. Each helper builds the `type` and `data` of one
// AgentRunResult (spec §6); the runner server stamps run_id, sequence (0, 1, 2...) and
// timestamp when it writes the line, so runner code never counts.
import type { z } from "zod";
import type { StateScope } from "../../server/protocols/runner/context";
import { TERMINAL_RESULT_TYPES, type RESULT_DATA_SCHEMAS } from "../../server/protocols/runner/result";

type DataInput<T extends keyof typeof RESULT_DATA_SCHEMAS> = z.input<(typeof RESULT_DATA_SCHEMAS)[T]>;

/**
 * One result before the server stamps it. `run_id`, `sequence` and `timestamp` are normally
 * left out; setting them overrides the stamp (for tests of a host's checks).
 */
export type ResultDraft = {
  type: string;
  data: Record<string, unknown>;
  run_id?: string;
  sequence?: number;
  timestamp?: number;
};

/** A line written exactly as given (not JSON-encoded): only for testing a host's parser. */
export class RawLine {
  constructor(readonly line: string) {}
}

export type RunOutput = ResultDraft | RawLine;

export const delta = (text: string, opts: { id?: string } = {}): ResultDraft => ({
  type: "message.delta",
  data: { chunk: { role: "assistant", content: text, ...(opts.id ? { id: opts.id } : {}) } } satisfies DataInput<"message.delta">,
});

export const completed = (text: string, opts: { id?: string } = {}): ResultDraft => ({
  type: "message.completed",
  data: { message: { role: "assistant", content: text, ...(opts.id ? { id: opts.id } : {}) } } satisfies DataInput<"message.completed">,
});

export const toolStarted = (data: DataInput<"tool.call.started">): ResultDraft => ({ type: "tool.call.started", data });

export const toolCompleted = (data: DataInput<"tool.call.completed">): ResultDraft => ({ type: "tool.call.completed", data });

type ArtifactInput = Omit<DataInput<"artifact.created">, "content_base64" | "text"> &
  ({ text: string; bytes?: never } | { bytes: Uint8Array; text?: never });

/** An artifact from text or bytes (bytes are sent base64-encoded). */
export const artifact = ({ bytes, text, ...rest }: ArtifactInput): ResultDraft => ({
  type: "artifact.created",
  data: { ...rest, ...(bytes ? { content_base64: Buffer.from(bytes).toString("base64") } : { text }) } satisfies DataInput<"artifact.created">,
});

export const stateUpdated = (scope: StateScope, key: string, value: unknown): ResultDraft => ({
  type: "state.updated",
  data: { scope, key, value } satisfies DataInput<"state.updated">,
});

export const actionRequested = (action: string, target: Record<string, unknown> = {}, payload: Record<string, unknown> = {}): ResultDraft => ({
  type: "action.requested",
  data: { action, target, payload } satisfies DataInput<"action.requested">,
});

export const runCompleted = (data: DataInput<"run.completed"> = {}): ResultDraft => ({ type: "run.completed", data });

/** A failed run; `usage` is what it spent before failing, which the host still records. */
export const runFailed = (code: string, message: string, opts: { retryable?: boolean; usage?: DataInput<"run.failed">["usage"] } = {}): ResultDraft => ({
  type: "run.failed",
  data: { code, message: message.slice(0, 2000), retryable: opts.retryable ?? false, ...(opts.usage ? { usage: opts.usage } : {}) } satisfies DataInput<"run.failed">,
});

export const rawLine = (line: string): RawLine => new RawLine(line);

export const isTerminal = (draft: ResultDraft): boolean => TERMINAL_RESULT_TYPES.has(draft.type);
