import "server-only";
import { claimApprovalsForRun } from "../approvals/repository";
import { userMessageParts, type RunAgentInput } from "../protocols/ag-ui/run-input";
import type { CarriedApproval, CarriedToolResult } from "../protocols/runner/carried";
import { findRunClientToolResults } from "./repository/runners";

// What a run brings back to the runner that asked for it in an earlier run, in `ctx.metadata`
// (server/protocols/runner/carried.ts): the client's answers to its frontend tool calls, and
// the decisions on its writes that waited for a person, which it carries out by calling
// tools/call again with the same tool_call_id. The run claims those decisions as the built-in
// agent's runs do (approvals/repository.ts claimApprovalsForRun): decided and expired requests,
// and, when it brings a new user message, the ones still pending, which that message supersedes.

export async function carriedToRunner({
  run,
  input,
}: {
  run: { id: string; threadId: string };
  input: RunAgentInput;
}): Promise<{ metadata: { tool_results?: CarriedToolResult[]; approvals?: CarriedApproval[] }; parents: Map<string, string> }> {
  const [results, decided] = await Promise.all([
    findRunClientToolResults({ runId: run.id }),
    claimApprovalsForRun({ threadId: run.threadId, runId: run.id, supersede: userMessageParts(input).fromUser }),
  ]);
  // The assistant message each carried call was streamed under (from the pending card the claim removed).
  const parents = new Map(decided.flatMap((a) => (a.parentMessageId ? [[a.toolCallId, a.parentMessageId] as const] : [])));
  const metadata = {
    ...(results.length > 0 ? { tool_results: results.map((r) => ({ tool_call_id: r.toolCallId, tool_name: r.toolName, content: r.content })) } : {}),
    ...(decided.length > 0
      ? {
          approvals: decided.map((a) => ({
            approval_id: a.id,
            tool_call_id: a.toolCallId,
            action: a.action,
            status: a.status as CarriedApproval["status"],
            input: a.status === "approved" ? (a.editedInput ?? a.input) : a.input,
            reason: a.reason,
          })),
        }
      : {}),
  };
  return { metadata, parents };
}
