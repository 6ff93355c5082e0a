// What a run carries back to a runner from its earlier runs, in AgentRunContext.metadata
// (docs/runner-tools.md): the client's answers to the frontend tool calls the runner made
// (`tool_results`), and the decisions on the writes it asked for that waited for a person
// (`approvals`). Shared by the host, which writes them, and the runner SDK, which reads them.
import { z } from "zod";

export const carriedToolResultSchema = z.object({
  tool_call_id: z.string(),
  tool_name: z.string(),
  /** The client's answer as it sent it (text). */
  content: z.string(),
});

export const carriedApprovalSchema = z.object({
  approval_id: z.string(),
  tool_call_id: z.string(),
  /** `module.method` of the project_cli call. */
  action: z.string(),
  status: z.enum(["approved", "denied", "expired", "superseded"]),
  /** The input that runs when approved: the person's edits when they changed it. */
  input: z.unknown(),
  reason: z.string().nullable(),
});

export const carriedMetadataSchema = z.object({
  tool_results: z.array(carriedToolResultSchema).catch([]).default([]),
  approvals: z.array(carriedApprovalSchema).catch([]).default([]),
});

export type CarriedToolResult = z.infer<typeof carriedToolResultSchema>;
export type CarriedApproval = z.infer<typeof carriedApprovalSchema>;
