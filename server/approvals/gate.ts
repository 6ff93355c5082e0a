import "server-only";
import { randomUUID } from "node:crypto";
import { env } from "../env";
import { checkMcpInput } from "../tools/mcp/calls";
import { findRunMcpServers, type RunMcpServer } from "../tools/repository/run-mcp-servers";
import { kindOfMcpTool } from "../tools/mcp/tool-info";
import { findAction } from "../tools/project-cli/actions";
import { PROJECT_CLI_TOOL_NAME, projectCliArgsSchema } from "../tools/project-cli/tool";
import { approvalCard, approvalView } from "./preview";
import { needsApproval, writeNeedsApproval, type RunApprovalPolicy } from "./policy";
import { freezeRunPolicy, insertApproval, placeholderMessageId, type ApprovalRow } from "./repository";

// The approval gate in front of project_cli. A write the run's policy says a person must approve
// is not run: it becomes an approval row, the run ends with an interrupt, and the thread keeps a
// pending card in the call's place until a later run resolves it (resolve.ts). Calls the gate lets
// through, and calls that are not valid (the tool answers those itself), run as before.

/** The run the gate stands in; `locale` is the language of its pending cards. */
export type ApprovalGateRun = {
  id: string;
  threadId: string;
  userId: string;
  apiKeyHash?: string | null;
  locale?: string;
  /** The MCP servers the run may use, when its context read them already. */
  mcpServers?: RunMcpServer[];
};

/** The thread's pending card for an approval, written with the run's end. */
export type PendingCardMessage = { role: "tool"; messageId: string; content: string; metadata: Record<string, unknown> };

export type ApprovalGate = {
  /** The request the call became, or null when it may run now. */
  check(call: { toolCallId: string; args: unknown }): Promise<ApprovalRow | null>;
  /** The requests this run made, in order. */
  readonly requested: readonly ApprovalRow[];
  /** Their pending cards, for the thread. */
  pendingCards(parents: ReadonlyMap<string, string>): PendingCardMessage[];
};

/**
 * An MCP tool's call as the policy sees it: a write and its reach, from the tool's annotations
 * (tool-info.ts, kindOfMcpTool); null for a read, a tool the run may not use, or invalid input.
 */
function mcpWrite(servers: readonly RunMcpServer[], module: string, method: string, input: unknown): { involvesOthers: boolean } | null {
  const server = servers.find((s) => s.name === module);
  const tool = server?.tools.find((t) => t.name === method);
  if (!server || !tool || checkMcpInput(server.name, tool, input)) return null;
  const kind = kindOfMcpTool(tool);
  return kind.kind === "write" ? { involvesOthers: kind.involvesOthers } : null;
}

export function createApprovalGate(run: ApprovalGateRun, now: () => Date = () => new Date()): ApprovalGate {
  let policy: Promise<RunApprovalPolicy> | null = null;
  let mcpServers: Promise<RunMcpServer[]> | null = run.mcpServers ? Promise.resolve(run.mcpServers) : null;
  const requested: ApprovalRow[] = [];
  return {
    requested,
    async check({ toolCallId, args }) {
      const parsed = projectCliArgsSchema.safeParse(args);
      if (!parsed.success) return null;
      const { module, method, input } = parsed.data;
      const action = findAction(module, method);
      // Reads never ask, and invalid input is answered by the tool with what to fix.
      if (action && (action.kind !== "write" || !action.input.safeParse(input).success)) return null;
      let mcp: { involvesOthers: boolean } | null = null;
      if (!action) {
        mcpServers ??= findRunMcpServers({ runId: run.id, userId: run.userId });
        mcp = mcpWrite(await mcpServers, module, method, input);
        if (!mcp) return null;
      }
      policy ??= freezeRunPolicy({ runId: run.id, apiKeyHash: run.apiKeyHash ?? null });
      const frozen = await policy;
      const asks = mcp ? writeNeedsApproval(frozen, () => mcp.involvesOthers) : needsApproval(frozen, module, method, input);
      if (!asks) return null;
      const created = now();
      const asked: ApprovalRow = {
        id: randomUUID(),
        runId: run.id,
        threadId: run.threadId,
        userId: run.userId,
        toolCallId,
        action: `${module}.${method}`,
        input,
        status: "pending",
        policy: frozen,
        decidedBy: null,
        decidedAsAdmin: false,
        decidedAt: null,
        reason: null,
        editedInput: null,
        expiresAt: new Date(created.getTime() + env.APPROVAL_TTL_SECONDS * 1000),
        resolvedRunId: null,
        createdAt: created,
      };
      const stored = await insertApproval(asked);
      // The call asked already (its step repeated): that request stands.
      const row = stored.id === asked.id ? asked : stored;
      requested.push(row);
      return row;
    },
    pendingCards(parents) {
      return requested.map((row) => pendingCardMessage(row, parents.get(row.toolCallId), run.locale));
    },
  };
}

/** The card a thread keeps in a call's place while its approval is pending. */
export function pendingCardMessage(row: ApprovalRow, parentMessageId?: string, locale?: string): PendingCardMessage {
  return {
    role: "tool",
    messageId: placeholderMessageId(row.id),
    content: JSON.stringify({ status: "pending_approval", approval_id: row.id, action: row.action }),
    metadata: {
      stage: "approval",
      approval_id: row.id,
      tool_call_id: row.toolCallId,
      tool_name: PROJECT_CLI_TOOL_NAME,
      tool_call_args: { module: row.action.split(".")[0], method: row.action.split(".")[1], input: row.input },
      ui_schema: approvalCard(row, { locale }),
      approval: approvalView(row),
      ...(parentMessageId ? { parent_message_id: parentMessageId } : {}),
    },
  };
}
