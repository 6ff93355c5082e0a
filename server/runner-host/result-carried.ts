import "server-only";
import { findDecidedUnclaimed } from "../approvals/repository";
import { currentStatus } from "../approvals/preview";
import type { CarriedApproval, CarriedToolResult } from "../protocols/runner/carried";
import { findRunClientToolResults } from "./repository";

// What a run brings back to the runner that asked for it in an earlier run, in `ctx.metadata`
// (server/protocols/runner/carried.ts): the client's answers to its frontend tool calls, and
// the decisions on its writes that waited for a person, which it carries out by calling
// tools/call again with the same tool_call_id.

export async function carriedToRunner({ run }: { run: { id: string; threadId: string } }): Promise<{ tool_results?: CarriedToolResult[]; approvals?: CarriedApproval[] }> {
  const [results, decided] = await Promise.all([findRunClientToolResults({ runId: run.id }), findDecidedUnclaimed({ threadId: run.threadId })]);
  return {
    ...(results.length > 0 ? { tool_results: results.map((r) => ({ tool_call_id: r.toolCallId, tool_name: r.toolName, content: r.content })) } : {}),
    ...(decided.length > 0
      ? {
          approvals: decided.map((a) => ({
            approval_id: a.id,
            tool_call_id: a.toolCallId,
            action: a.action,
            status: currentStatus(a) as CarriedApproval["status"],
            input: a.status === "approved" ? (a.editedInput ?? a.input) : a.input,
            reason: a.reason,
          })),
        }
      : {}),
  };
}
