import "server-only";
import type { UiSchema } from "../ui-schema/schema";
import { PROJECT_CLI_TOOL_NAME } from "../tools/project-cli/tool";
import { approvalCard } from "./preview";
import type { ClaimedApproval } from "./repository";

// A run of a thread with approvals to carry: each decided (or expired, or superseded) request
// becomes the answer to its tool call, once. Approved ones run now, with the person's edits;
// the others tell the model why the action was not done. The claim (claimApprovalsForRun) is a
// conditional update, so however many runs start, one carries each approval.

export type ApprovalCallResult = { toolResponseText: string; uiSchema: UiSchema | null; output: Record<string, unknown> | null };

export type ResolvedApproval = {
  row: ClaimedApproval;
  toolCallId: string;
  toolName: string;
  /** The arguments the call ran (or would have run) with. */
  args: { module: string; method: string; input: unknown };
  result: ApprovalCallResult;
};

const failure = (code: string, message: string) => JSON.stringify({ status: "failure", error: { code, message } });

type NotDone = Pick<ClaimedApproval, "status" | "action" | "reason" | "expiresAt">;

/** Why an approval's action was not done (denied, expired, superseded), as a failure code and message. */
export function notDoneReason(row: NotDone): { code: string; message: string } {
  switch (row.status) {
    case "denied":
      return { code: "NOT_APPROVED", message: `The user denied ${row.action}; it was not done.${row.reason ? ` Their reason: ${row.reason}` : ""}` };
    case "expired":
      return { code: "APPROVAL_EXPIRED", message: `Nobody approved ${row.action} before the request expired at ${row.expiresAt.toISOString()}; it was not done.` };
    default:
      return { code: "NOT_APPROVED", message: `The user sent a new message instead of approving ${row.action}; it was not done. Ask again if it is still wanted.` };
  }
}

const notDoneText = (row: NotDone) => {
  const { code, message } = notDoneReason(row);
  return failure(code, message);
};

/** The outcome of each claimed approval (claimApprovalsForRun), running the approved ones, in order. */
export async function carryApprovals(
  rows: readonly ClaimedApproval[],
  execute: (call: { toolCallId: string; callRunId: string; args: ResolvedApproval["args"] }) => Promise<ApprovalCallResult>,
  /** The language of the cards of requests that were not approved. */
  locale?: string,
): Promise<ResolvedApproval[]> {
  const resolved: ResolvedApproval[] = [];
  for (const row of rows) {
    const [module = "", method = ""] = row.action.split(".");
    const args = { module, method, input: row.status === "approved" ? (row.editedInput ?? row.input) : row.input };
    const result: ApprovalCallResult =
      row.status === "approved" ? await execute({ toolCallId: row.toolCallId, callRunId: row.runId, args }) : { toolResponseText: notDoneText(row), uiSchema: approvalCard(row, { locale }), output: null };
    resolved.push({ row, toolCallId: row.toolCallId, toolName: PROJECT_CLI_TOOL_NAME, args, result });
  }
  return resolved;
}
