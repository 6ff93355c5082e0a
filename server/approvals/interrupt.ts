import "server-only";
import type { Interrupt } from "@ag-ui/core";
import { approvalCard, approvalQuestion, approvalView } from "./preview";
import type { ApprovalRow } from "./repository";

// An approval request as AG-UI 1.0 types it (`Interrupt` in RUN_FINISHED's interrupt outcome),
// and the answer it expects back in RunAgentInput.resume[].payload.

export const APPROVAL_INTERRUPT_REASON = "tool_approval";

/** The resume payload of a tool approval; editedArgs are the call's arguments as the person changed them. */
export const APPROVAL_RESPONSE_SCHEMA = {
  type: "object",
  properties: {
    approved: { type: "boolean", description: "true runs the action (with editedArgs when given); false does not" },
    reason: { type: "string", maxLength: 1000, description: "Why not, for the model; optional" },
    editedArgs: {
      type: "object",
      description: "The call's arguments as changed by the person: {module, method, input}, same module and method, input valid for the method",
      properties: { module: { type: "string" }, method: { type: "string" }, input: { type: "object" } },
      required: ["input"],
    },
  },
  required: ["approved"],
  additionalProperties: false,
} as const;

/** The interrupt of a request, its card in `locale` (the run's language). */
export function approvalInterrupt(row: ApprovalRow, locale?: string): Interrupt {
  return {
    id: row.id,
    reason: APPROVAL_INTERRUPT_REASON,
    // The question a person answers, in the run's language, as the card asks it.
    message: approvalQuestion(row, locale),
    toolCallId: row.toolCallId,
    responseSchema: APPROVAL_RESPONSE_SCHEMA as unknown as Record<string, unknown>,
    expiresAt: row.expiresAt.toISOString(),
    metadata: { ui_schema: approvalCard(row, { locale }), approval: approvalView(row) },
  };
}
