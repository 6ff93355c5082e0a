import type { Interrupt } from "@ag-ui/core";
import type { AgUiEvent } from "../protocols/ag-ui/events";
import type { RunAgentInput } from "../protocols/ag-ui/run-input";
import type { RunMcpServer } from "../tools/repository/run-mcp-servers";

/** One persisted event: its per-run sequence number and its JSON, serialized once. */
export type EventRecord = { seq: number; type: string; json: string };

export type RunStatus = "queued" | "running" | "completed" | "failed" | "cancelled";
export const TERMINAL_STATUSES: ReadonlySet<RunStatus> = new Set(["completed", "failed", "cancelled"]);
export const TERMINAL_EVENT_TYPES: ReadonlySet<string> = new Set(["RUN_FINISHED", "RUN_ERROR"]);

/** How often an executing instance tells the database its runs are alive. */
export const HEARTBEAT_MS = 5_000;

/**
 * A run's token counts, counted as AG-UI's TokenUsage counts them (input includes cached input,
 * output includes reasoning). A count the provider did not report is absent, never 0.
 */
export type TokenUsage = { inputTokens?: number; outputTokens?: number; totalTokens?: number; cachedInputTokens?: number; reasoningTokens?: number };

/** What the engine knows of a run it executes. */
export type RunHandle = {
  id: string; // internal id, also the task id
  runId: string; // the client's runId
  threadId: string;
  userId: string;
  protocol: string;
  deadlineAt: Date;
  createdAt: Date;
  /** "running" when the run was accepted as started (the executor need not mark it). */
  status?: RunStatus;
  /** SHA-256 of the API key that started the run, when one did (its approval policy may differ). */
  apiKeyHash?: string | null;
  /** Which execution of the run this is (runs.attempt): 1, or more once instances took it over. */
  attempt?: number;
  /** The run's W3C trace context (runs.trace_parent, trace_state): its spans, runner and model calls join that trace. */
  traceParent?: string | null;
  traceState?: string | null;
};

/** Data that goes with an event into the thread's messages, never onto the wire. */
export type EmitExtras = {
  messageMetadata?: Record<string, unknown>;
  /** A TOOL_CALL_RESULT for a call an earlier run of the thread left waiting for approval. */
  answersEarlierCall?: boolean;
  /** On TEXT_MESSAGE_END: the message is in the thread already (a runner's platform action wrote it). */
  storedByHost?: boolean;
};

/** Sampling parameters a protocol passed through; runners apply what their model supports. */
export type GenerationParams = {
  model?: string;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  stop?: string[];
  seed?: number;
};

export type RunnerInput = {
  run: RunHandle;
  input: RunAgentInput;
  generation: GenerationParams;
  /** Aborted on cancel or deadline; runners pass it to every model call and tool. */
  signal: AbortSignal;
  /** Streams one event. RUN_STARTED / RUN_FINISHED / RUN_ERROR belong to the engine. */
  emit: (event: AgUiEvent, extras?: EmitExtras) => void;
  /**
   * The tokens the run used so far (cumulative) and the model that used them. When the runner then
   * throws, the run's failure still records them: in the ledger and on RUN_ERROR's usage.
   */
  reportUsage?: (usage: TokenUsage, model?: string) => void;
  /** What the runner's `prefetch` asked for, read while the run was accepted. */
  prefetched?: PrefetchedContext;
  /**
   * Present when this execution took the run over from one that stopped reporting: the events
   * the run streamed so far (after RUN_STARTED, whatever that execution left open is closed), so
   * the runner goes on from its last completed step. `interruptedToolCalls` were cut off while
   * their arguments streamed: they never ran. `unansweredToolCalls` ended without a result
   * (interrupted ones included): a runner repeats them with the same id, or answers them.
   */
  resume?: { events: AgUiEvent[]; interruptedToolCalls: string[]; unansweredToolCalls: string[] };
};

/** A runner's starting context, read in the round trip that accepts its run. */
export type ContextPrefetch = { historyLimit: number; memoryLimit: number };
export type PrefetchedMessage = { role: string; content: string; metadata: Record<string, unknown>; runId: string | null };
/**
 * `hiddenSkills`: the project_cli skills whose cards and documents the run does not show (its
 * user's and its binding's); `unresolvedApprovals`: the thread has approvals no run carried yet.
 */
export type PrefetchedContext = {
  history: PrefetchedMessage[];
  memoryFacts: { key: string; value: string }[];
  hiddenSkills: string[];
  unresolvedApprovals: boolean;
  /** The MCP servers the run may use, read in the same statement (no query of its own per run). */
  mcpServers: RunMcpServer[];
};

export type RunnerResult = {
  usage?: TokenUsage;
  /** Carried in RUN_FINISHED's `result`. */
  result?: unknown;
  model?: string;
  /** The run waits for these (approvals): it ends with RUN_FINISHED's interrupt outcome. */
  interrupts?: Interrupt[];
  /** Thread messages written with the run's end, after the ones it streamed (pending approval cards). */
  closingMessages?: { role: "tool"; messageId: string; content: string; metadata: Record<string, unknown> }[];
};

export interface Runner {
  readonly id: string;
  /** The thread history and memory this runner starts from, to be read when its run is accepted. */
  readonly prefetch?: ContextPrefetch;
  run(input: RunnerInput): Promise<RunnerResult>;
}

/**
 * A runner's own failure with the code it reported (an external runner's run.failed, or the
 * host's verdict on its stream); the run ends with RUN_ERROR carrying this code.
 */
export class RunnerFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable = false,
  ) {
    super(message);
    this.name = "RunnerFailure";
  }
}
