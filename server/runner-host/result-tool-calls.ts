import "server-only";
import type { ApprovalRow } from "../approvals/repository";
import type { ToolAgentOutput } from "../tools/project-cli/tool";

// A runner's host tool calls (tools/call of project_cli) as first-class calls of its run: the
// host API handler hands each answered call to the run's result stream, which streams it like
// the built-in agent's calls (TOOL_CALL_START/ARGS/END, then TOOL_CALL_RESULT with the card and
// a tool message carrying the ToolAgentOutput). The handler does so before it answers the
// runner, so the call sits in the run's one event sequence after everything the runner streamed
// before it asked and before everything it streams once it has the answer.

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

/**
 * Streams a call into its run when the run executes in this process; false when it does not
 * (another instance executes it): the runner still has its answer, and the thread shows the
 * call where the runner's own `tool.call.*` results place it.
 */
export function deliverHostToolCall(runId: string, call: HostToolCall): boolean {
  const sink = sinks.get(runId);
  if (!sink) return false;
  sink(call);
  return true;
}
