import "server-only";
import { findApproval, type ApprovalRow } from "../approvals/repository";
import { logger } from "../logger";
import { listen, notify } from "../runs/repository/notifications";
import type { ToolAgentOutput } from "../tools/project-cli/post-process";
import { insertToolHandOver, takeToolHandOvers } from "./repository/runners";

// A runner's host tool calls (tools/call of project_cli) as first-class calls of its run: the
// host API handler hands each answered call to the run's result stream, which streams it like
// the built-in agent's calls (TOOL_CALL_START/ARGS/END, then TOOL_CALL_RESULT with the card and
// a tool message carrying the ToolAgentOutput). When the run executes in the handler's process
// that happens before the runner gets its answer, so the call sits in the run's one event
// sequence after everything the runner streamed before it asked and before everything it
// streams once it has the answer. When another instance executes the run, the call is handed
// over through the database: a row, and a notification that has the executor take it at once;
// the executor also takes what is left when the runner's stream ends, so no call is missed.

/** What tools/call did with one call, as the run's events show it. */
export type HostToolCall = {
  toolCallId: string;
  toolName: string;
  /** The call's arguments as the runner sent them (`{module, method, input}`). */
  args: unknown;
  /** The answer the runner got: the text for its model, the card, the ToolAgentOutput. */
  outcome: { toolResponseText: string; uiSchema: unknown; output: ToolAgentOutput };
  /** The call waits for a person: the request it became. Its run ends with an interrupt. */
  pending?: ApprovalRow;
  /** The call answers one an earlier run made and left waiting for approval (this run carries it). */
  carried?: { approvalId: string; parentMessageId: string | null };
};

export type HostToolCallSink = (call: HostToolCall) => void;

// On globalThis: Next may load this module more than once in one process, and the handler and
// the run's executor must meet in the same map.
const slot = Symbol.for("dispatch.runner-host.tool-call-sinks");
const sinks: Map<string, HostToolCallSink> = ((globalThis as { [slot]?: Map<string, HostToolCallSink> })[slot] ??= new Map());

/** While a runner's run executes here, its host tool calls reach its result stream; returns the unregister. */
export function openHostToolCalls(runId: string, sink: HostToolCallSink): () => void {
  sinks.set(runId, sink);
  return () => {
    if (sinks.get(runId) === sink) sinks.delete(runId);
  };
}

const HAND_OVER_CHANNEL = "dispatch_runner_tool_call";

/** A call as a hand-over row keeps it: the approval it waits for by id (read again when taken). */
type HandedOver = Omit<HostToolCall, "pending"> & { pendingApprovalId?: string };

/**
 * Streams a call into its run: here when the run executes in this process (true), else handed
 * over to the instance that executes it (false).
 */
export async function deliverHostToolCall(runId: string, call: HostToolCall): Promise<boolean> {
  const sink = sinks.get(runId);
  if (sink) {
    sink(call);
    return true;
  }
  const { pending, ...rest } = call;
  const row: HandedOver = { ...rest, ...(pending ? { pendingApprovalId: pending.id } : {}) };
  await insertToolHandOver({ runId, call: row });
  await notify(HAND_OVER_CHANNEL, runId);
  return false;
}

async function takeHandOvers(runId: string, sink: HostToolCallSink): Promise<void> {
  for (const { call } of await takeToolHandOvers({ runId })) {
    const { pendingApprovalId, ...rest } = call as HandedOver;
    const pending = pendingApprovalId ? await findApproval({ id: pendingApprovalId }) : null;
    sink({ ...rest, ...(pending ? { pending } : {}) });
  }
}

/**
 * The executor's side of hand-overs for one run: takes them when notified, and `drain()` takes
 * what is left (call it once the runner's stream has ended, before the run's end is written).
 */
export function receiveHandOvers(runId: string, sink: HostToolCallSink): { drain(): Promise<void>; close(): void } {
  let chain: Promise<void> = Promise.resolve();
  const drain = () =>
    (chain = chain.then(() => takeHandOvers(runId, sink)).catch((err: unknown) => logger.warn({ err, runId }, "could not take handed-over tool calls")));
  let stop: (() => void) | null = null;
  let closed = false;
  listen(HAND_OVER_CHANNEL, (payload) => {
    if (payload === runId) void drain();
  }).then(
    (unlisten) => (closed ? unlisten() : (stop = unlisten)),
    // Without notifications the calls are taken when the stream ends.
    (err: unknown) => logger.warn({ err, runId }, "could not listen for handed-over tool calls"),
  );
  return {
    drain,
    close() {
      closed = true;
      stop?.();
    },
  };
}
