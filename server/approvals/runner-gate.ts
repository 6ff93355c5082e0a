import "server-only";
import type { ToolAgentOutput } from "../tools/project-cli/post-process";
import { PROJECT_CLI_TOOL_NAME } from "../tools/project-cli/tool";
import { createApprovalGate } from "./gate";
import { approvalCard, approvalView } from "./preview";
import { claimApproval, findOpenApprovalForCall, type ApprovalRow } from "./repository";
import { notDoneReason } from "./resolve";

// The same policy for external runners: a runner's tools/call of a write through the host API
// (server/runner-host/api/handlers/tools.ts) passes this gate. A write that needs a person is
// not run: the answer is a ToolAgentOutput failure with code APPROVAL_PENDING, the approval's
// id and expiry, and its card. The runner ends its run; once the person decides, the run that
// continues calls tools/call again with the same tool_call_id, and gets the action run (with
// the person's edits) or the reason it was not, exactly once.

export type RunnerToolCall = { run: { id: string; threadId: string; userId: string }; toolCallId: string; args: unknown };

type Answer = { output: ToolAgentOutput; toolResponseText: string; uiSchema: unknown };

/**
 * Run it (with these arguments; an approved call as the call of the run that asked, `callRunId`,
 * so it is done once however often it is asked again), or answer without running it.
 */
export type RunnerToolGate = ({ run: unknown; callRunId?: string } | { answer: Answer; pending?: ApprovalRow }) & {
  /** The call is one an earlier run made and left waiting: this run carries its approval. */
  carried?: { approvalId: string; parentMessageId: string | null };
};

function answerFor(row: ApprovalRow, args: unknown, code: string, message: string): Answer {
  const error = { code, message, approval: approvalView(row) };
  return {
    output: { tool_name: PROJECT_CLI_TOOL_NAME, tool_call_id: row.toolCallId, tool_call_args: args, status: "failure", result: null, error, ui_hints: null },
    toolResponseText: JSON.stringify({ status: "failure", error: { code, message, approval_id: row.id, expires_at: row.expiresAt.toISOString() } }),
    uiSchema: approvalCard(row),
  };
}

const pending = (row: ApprovalRow, args: unknown) =>
  answerFor(row, args, "APPROVAL_PENDING", `${row.action} waits for the user's approval until ${row.expiresAt.toISOString()}; end the run and call again with the same tool_call_id once it is decided`);

export async function gateRunnerToolCall({ run, toolCallId, args }: RunnerToolCall): Promise<RunnerToolGate> {
  const earlier = await findOpenApprovalForCall({ threadId: run.threadId, toolCallId, runId: run.id });
  if (earlier) {
    // A run asking again for a call it already carries (a retry) carries it again.
    const claimed = earlier.resolvedRunId === run.id ? { ...earlier, parentMessageId: null } : await claimApproval({ id: earlier.id, runId: run.id });
    if (!claimed) return { answer: pending(earlier, args), pending: earlier };
    const carried = claimed.runId !== run.id ? { carried: { approvalId: claimed.id, parentMessageId: claimed.parentMessageId } } : {};
    const [module, method] = claimed.action.split(".");
    if (claimed.status === "approved") return { run: { module, method, input: claimed.editedInput ?? claimed.input }, callRunId: claimed.runId, ...carried };
    const why = notDoneReason(claimed);
    return { answer: answerFor(claimed, args, why.code, why.message), ...carried };
  }
  const asked = await createApprovalGate(run).check({ toolCallId, args });
  return asked ? { answer: pending(asked, args), pending: asked } : { run: args };
}
