import "server-only";
import type { Message as AgUiMessage } from "@ag-ui/core";
import { findSnapshotMessages, type SnapshotRow } from "../repository/conversation";
import { compileToolUiSchema } from "../../tools/project-cli/tool";
import { attachmentLinks } from "../../attachments/service";

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

type UserContent = Extract<AgUiMessage, { role: "user" }>["content"];

/** AG-UI messages of snapshot rows: tool results after the call that asked for them, with their cards. */
function messagesOf(rows: SnapshotRow[], userContent: ReadonlyMap<string, UserContent> = new Map()): AgUiMessage[] {
  const messages: AgUiMessage[] = [];
  for (const row of rows) {
    if (row.role === "user") messages.push({ id: row.messageId, role: "user", content: userContent.get(row.messageId) ?? row.content });
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

/** The thread's newest messages as AG-UI messages (a MESSAGES_SNAPSHOT's). */
export async function threadSnapshot(threadId: string, untilRun: string | null): Promise<AgUiMessage[]> {
  return messagesOf(await findSnapshotMessages({ threadId, untilRun, limit: SNAPSHOT_MESSAGE_LIMIT }));
}

/** A user message's text and its attachments as AG-UI input parts, each with a fresh signed URL. */
async function withAttachments(row: SnapshotRow, requestOrigin: string | null | undefined): Promise<UserContent | null> {
  const links = await attachmentLinks({ metadata: row.metadata, requestOrigin });
  if (links.length === 0) return null;
  return [
    { type: "text", text: row.content },
    ...links.map((l) => ({ type: l.mime_type.startsWith("image/") ? ("image" as const) : ("document" as const), source: { type: "url" as const, value: l.url, mimeType: l.mime_type } })),
  ];
}

/** The thread as an AG-UI agent is sent it with a run: as a snapshot, each user message with its attachments. */
export async function agentHistory(threadId: string, requestOrigin?: string | null): Promise<AgUiMessage[]> {
  const rows = await findSnapshotMessages({ threadId, untilRun: null, limit: SNAPSHOT_MESSAGE_LIMIT });
  const attached = rows.filter((r) => r.role === "user" && r.metadata.user_message_attachments !== undefined);
  const contents = await Promise.all(attached.map(async (r) => [r.messageId, await withAttachments(r, requestOrigin)] as const));
  return messagesOf(rows, new Map(contents.filter((c): c is readonly [string, UserContent] => c[1] !== null)));
}
