import "server-only";
import type { Message as AgUiMessage } from "@ag-ui/core";
import { findSnapshotMessages, type SnapshotRow } from "../repository/conversation";
import { compileToolUiSchema } from "../../tools/project-cli/tool";

// A thread as AG-UI messages: what a client that reloads gets (MESSAGES_SNAPSHOT), and the
// history an AG-UI agent is sent with each run (server/runner-host/ag-ui/agent-runner.ts).

/** How many of the thread's newest messages a MESSAGES_SNAPSHOT carries. */
export const SNAPSHOT_MESSAGE_LIMIT = 200;

function toolCallOf(row: SnapshotRow): { id: string; type: "function"; function: { name: string; arguments: string } } | null {
  const meta = row.metadata;
  const output = (meta.tool_agent_output ?? {}) as Record<string, unknown>;
  const id = (meta.tool_call_id ?? output.tool_call_id) as unknown;
  const name = (meta.tool_name ?? output.tool_name) as unknown;
  if (typeof id !== "string" || typeof name !== "string") return null;
  return { id, type: "function", function: { name, arguments: JSON.stringify(meta.tool_call_args ?? output.tool_call_args ?? {}) } };
}

/** The thread's newest messages as AG-UI messages: tool results after the call that asked for them, with their cards. */
export async function threadSnapshot(threadId: string, untilRun: string | null): Promise<AgUiMessage[]> {
  const rows = await findSnapshotMessages({ threadId, untilRun, limit: SNAPSHOT_MESSAGE_LIMIT });
  const messages: AgUiMessage[] = [];
  for (const row of rows) {
    if (row.role === "user") messages.push({ id: row.messageId, role: "user", content: row.content });
    else if (row.role === "assistant") messages.push({ id: row.messageId, role: "assistant", content: row.content });
    else if (row.role === "reasoning") messages.push({ id: row.messageId, role: "reasoning", content: row.content });
    else {
      const call = toolCallOf(row);
      if (!call) continue;
      // Under the assistant message the call was streamed in, as the client assembled it live.
      const parentId = typeof row.metadata.parent_message_id === "string" ? row.metadata.parent_message_id : call.id;
      const last = messages.at(-1);
      if (last?.role === "assistant" && last.id === parentId) last.toolCalls = [...(last.toolCalls ?? []), call];
      else messages.push({ id: parentId, role: "assistant", toolCalls: [call] });
      const uiSchema = compileToolUiSchema(row.metadata.tool_agent_output);
      messages.push({ id: row.messageId, role: "tool", content: row.content, toolCallId: call.id, ...(uiSchema ? { metadata: { ui_schema: uiSchema } } : {}) });
    }
  }
  return messages;
}
