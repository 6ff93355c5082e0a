// Tool calls that outlive a run: frontend tools the client runs, and host writes that wait for a
// person's approval. Either way the runner ends its run, and a later run of the conversation
// brings the outcome back in its context (server/protocols/runner/carried.ts).
import { randomUUID } from "node:crypto";
import { carriedMetadataSchema, type CarriedApproval, type CarriedToolResult } from "../../server/protocols/runner/carried";
import type { AgentRunContext } from "../../server/protocols/runner/context";
import type { HostApiResponse } from "../../server/protocols/runner/host-api";
import { toolStarted, type ResultDraft } from "./results";

export type { CarriedApproval, CarriedToolResult };

/** A tool the client declared for this run (AG-UI `tools`, the Agent API's `tools`). */
export type ClientTool = { name: string; description?: string; parameters?: unknown };

/** The client's own tools, which the runner may call through its result stream (callClientTool). */
export function clientTools(ctx: AgentRunContext): ClientTool[] {
  const request = ctx.metadata.request as { tools?: unknown } | undefined;
  const tools = Array.isArray(request?.tools) ? request.tools : [];
  return tools.flatMap((t: unknown) => {
    const tool = t as { name?: unknown; description?: unknown; parameters?: unknown } | null;
    return typeof tool?.name === "string" ? [{ name: tool.name, description: typeof tool.description === "string" ? tool.description : undefined, parameters: tool.parameters }] : [];
  });
}

/**
 * A call of one of the client's tools: the client runs it and sends the result with its next
 * run, which brings it back in `toolResults(ctx)`. End the run after yielding it.
 */
export function callClientTool(name: string, parameters: Record<string, unknown>, opts: { id?: string } = {}): ResultDraft {
  return toolStarted({ tool_call_id: opts.id ?? `call_${randomUUID().replaceAll("-", "")}`, tool_name: name, parameters });
}

/** The client's answers to this runner's frontend tool calls, brought by this run. */
export function toolResults(ctx: AgentRunContext): CarriedToolResult[] {
  return carriedMetadataSchema.parse(ctx.metadata).tool_results;
}

/** Decisions on writes this runner asked for in earlier runs: call tools/call again with each tool_call_id to carry them out. */
export function decidedApprovals(ctx: AgentRunContext): CarriedApproval[] {
  return carriedMetadataSchema.parse(ctx.metadata).approvals;
}

type ToolCallAnswer = HostApiResponse<"tools/call">;

/** The approval a tools/call answer says the call waits for, or null when the call ran (or failed otherwise). */
export function pendingApproval(answer: ToolCallAnswer): { id: string; expiresAt: string } | null {
  const error = answer.output.error as { code?: unknown; approval?: { id?: unknown; expiresAt?: unknown } } | null;
  if (error?.code !== "APPROVAL_PENDING") return null;
  return { id: String(error.approval?.id ?? ""), expiresAt: String(error.approval?.expiresAt ?? "") };
}

/** The project_cli parameters that carry out a decided approval (the host runs the approved input whatever is sent). */
export function approvalCall(approval: CarriedApproval): { tool_name: "project_cli"; tool_call_id: string; parameters: Record<string, unknown> } {
  const [module = "", method = ""] = approval.action.split(".");
  return { tool_name: "project_cli", tool_call_id: approval.tool_call_id, parameters: { module, method, input: approval.input } };
}
