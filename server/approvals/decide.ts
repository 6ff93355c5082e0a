import "server-only";
import { AppError } from "../kernel/errors";
import { issuePath } from "../kernel/input-issues";
import { findAction } from "../tools/project-cli/actions";
import { AGENT_INTERRUPT_ACTION } from "./preview";
import { expireIfDue, findApproval, recordDecision, type ApprovalRow } from "./repository";

// A person's answer to an approval request. Only the thread's owner decides, or an admin on their
// behalf (recorded as such). The decision is a conditional update: the first one wins, repeating
// it is a no-op that answers the same, and a request that expired or was superseded is a 409.

export type Decision = {
  approve: boolean;
  reason?: string | null;
  /** The action's input as the person changed it; validated by the action's own strict schema. */
  editedInput?: unknown;
};

export type Decider = { userId: string; isAdmin: boolean };

export const MAX_REASON_CHARS = 1_000;

function checkEdits(row: ApprovalRow, decision: Decision, field: string): void {
  if (decision.editedInput === undefined) return;
  // An agent interrupt's "edit" is the client's resume payload, which the agent's own schema judges.
  if (row.action === AGENT_INTERRUPT_ACTION && decision.approve) return;
  if (!decision.approve) throw new AppError("BAD_REQUEST", `${field}: changed input only goes with an approval; leave it out to deny`, { field });
  const [module = "", method = ""] = row.action.split(".");
  const action = findAction(module, method);
  if (!action) throw new AppError("CONFLICT", `${row.action} is no longer an action of this server; the request cannot be approved`);
  const parsed = action.input.safeParse(decision.editedInput);
  if (parsed.success) return;
  const issue = parsed.error.issues[0]!;
  const path = issuePath([...field.split("."), ...issue.path]);
  throw new AppError("BAD_REQUEST", `${path}: ${issue.message} (the ${row.action} input was not changed)`, { field: path });
}

function refusal(row: ApprovalRow, wanted: "approved" | "denied"): AppError {
  switch (row.status) {
    case "expired":
      return new AppError("CONFLICT", `This approval request expired at ${row.expiresAt.toISOString()}; ${row.action} was not done. Ask the agent again.`, { status: "expired" });
    case "superseded":
      return new AppError("CONFLICT", `This approval request was superseded by a newer message in the thread; ${row.action} was not done. Ask the agent again.`, {
        status: "superseded",
      });
    default:
      return new AppError("CONFLICT", `This approval request was already ${row.status}${row.decidedAt ? ` at ${row.decidedAt.toISOString()}` : ""}; it cannot be ${wanted} now.`, {
        status: row.status,
      });
  }
}

/**
 * Records the decision. `changed` is false when the same decision was already recorded (a retry):
 * the row is returned as it stands. `field` names where edits came from, for error messages.
 */
export async function decideApproval(opts: { approvalId: string; decider: Decider; decision: Decision; field?: string }): Promise<{ row: ApprovalRow; changed: boolean }> {
  const { approvalId, decider, decision } = opts;
  const found = await findApproval({ id: approvalId });
  if (!found || (found.userId !== decider.userId && !decider.isAdmin)) throw new AppError("NOT_FOUND", `Approval request ${approvalId} not found`);
  const reason = decision.reason?.trim() || null;
  if (reason && reason.length > MAX_REASON_CHARS) throw new AppError("BAD_REQUEST", `reason: at most ${MAX_REASON_CHARS} characters`, { field: "reason" });
  checkEdits(found, decision, opts.field ?? "input");
  const wanted = decision.approve ? "approved" : "denied";
  const recorded = await recordDecision({
    id: approvalId,
    status: wanted,
    decidedBy: decider.userId,
    asAdmin: decider.userId !== found.userId,
    reason,
    editedInput: decision.approve ? decision.editedInput : undefined,
  });
  if (recorded) return { row: recorded, changed: true };
  const current = (await expireIfDue({ id: approvalId })) ?? found;
  if (current.status === wanted) return { row: current, changed: false };
  throw refusal(current, wanted);
}
