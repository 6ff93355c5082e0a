import type { Interrupt } from "@ag-ui/core";
import type { InputMessage } from "./request";

// Approvals in the Agent API's own terms (docs/approvals.md). A response that ends waiting for
// a person carries one `mcp_approval_request` message per request: its id is what the client's
// `mcp_approval_response` input item names in `approval_request_id` (with `approve` and an
// optional `reason`), sent on the same session_id to continue the work.

/** The tool every approval request of the built-in agent is about. */
const TOOL_NAME = "project_cli";

/** What the approval request message's data content holds. */
export type ApprovalRequestData = {
  id: string;
  name: string;
  /** The call's arguments, as the model wrote them (JSON text). */
  arguments: string;
  call_id: string | null;
  server_label: "dispatch";
  expires_at: string | null;
  reason: string;
};

/**
 * The call an AG-UI agent's interrupt is about, as its approval keeps it (`metadata.approval.input.tool_call`,
 * server/approvals/agent-interrupts.ts): the tool is the agent's own, not project_cli.
 */
function agentCall(interrupt: Interrupt): { name: string; args: unknown } | null {
  const approval = (interrupt.metadata as { approval?: { action?: unknown; input?: { tool_call?: { name?: unknown; args?: unknown } } } } | undefined)?.approval;
  const call = approval?.action === "agent.interrupt" ? approval.input?.tool_call : undefined;
  return call && typeof call.name === "string" ? { name: call.name, args: call.args ?? {} } : null;
}

/** The request data of each interrupt of an interrupted run, with the arguments its call streamed. */
export function approvalRequests(interrupts: readonly Interrupt[], callArguments: ReadonlyMap<string, string>): ApprovalRequestData[] {
  return interrupts.map((interrupt) => ({
    id: interrupt.id,
    name: agentCall(interrupt)?.name ?? TOOL_NAME,
    arguments: (interrupt.toolCallId && callArguments.get(interrupt.toolCallId)) || JSON.stringify(agentCall(interrupt)?.args ?? {}),
    call_id: interrupt.toolCallId ?? null,
    server_label: "dispatch",
    expires_at: interrupt.expiresAt ?? null,
    reason: interrupt.message ?? interrupt.reason,
  }));
}

export type ApprovalAnswer = { approvalRequestId: string; approve: boolean; reason: string | null; index: number };

/** The request's `mcp_approval_response` items, in order. */
export function approvalAnswers(input: readonly InputMessage[]): ApprovalAnswer[] {
  return input.flatMap((message, index) =>
    message.type === "mcp_approval_response" && message.approval_request_id !== undefined
      ? [{ approvalRequestId: message.approval_request_id, approve: message.approve ?? false, reason: message.reason ?? null, index }]
      : [],
  );
}
