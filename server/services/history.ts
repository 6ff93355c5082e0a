import "server-only";
import { AppError } from "../errors";
import { findHistoryDay, type MessageRow } from "../repositories/messages";
import { findLatestThreadForUser, findThreadForUser } from "../repositories/threads";
import { compileStoredUiHints } from "../ui-schema/compile";
import type { UiSchema } from "../ui-schema/schema";

export type HistoryMessage =
  | { id: string; seq: number; role: "user"; content: string; url: string | null; timestamp: string }
  | { id: string; seq: number; role: "tool" | "assistant"; content: string; uiSchema: UiSchema | null; timestamp: string };

export type HistorySnapshot = {
  scope: "history_day";
  threadId: string | null;
  day: string | null;
  hasMore: boolean;
  messages: HistoryMessage[];
};

/** Resolves a user attachment to a fresh signed URL; attachments plug in here. */
export type AttachmentUrlResolver = (message: MessageRow) => Promise<string | null>;
let resolveAttachmentUrl: AttachmentUrlResolver = async () => null;
export function setAttachmentUrlResolver(fn: AttachmentUrlResolver): void {
  resolveAttachmentUrl = fn;
}

function toolUiSchema(m: MessageRow): UiSchema | null {
  const output = m.metadata.tool_agent_output as { ui_hints?: unknown; tool_call_id?: string } | undefined;
  if (!output?.ui_hints) return null;
  return compileStoredUiHints(output.ui_hints, { meta: output.tool_call_id ? { toolId: output.tool_call_id } : undefined });
}

async function toHistoryMessage(m: MessageRow): Promise<HistoryMessage> {
  const base = { id: m.messageId, seq: m.seq, content: m.content, timestamp: m.createdAt.toISOString() };
  if (m.role === "user") return { ...base, role: "user", url: await resolveAttachmentUrl(m) };
  return { ...base, role: m.role === "tool" ? "tool" : "assistant", uiSchema: m.role === "tool" ? toolUiSchema(m) : null };
}

export function parseHistoryDate(raw: string | null): Date | null {
  if (raw === null || raw === "") return null;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw);
  const date = match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))) : null;
  if (!date || date.toISOString().slice(0, 10) !== raw) {
    throw new AppError("BAD_REQUEST", "before must be a date in the form YYYY-MM-DD", { field: "before" });
  }
  return date;
}

/** One day of a thread's history (UTC days), newest first by day, messages in seq order. */
export async function getHistoryDay(opts: { userId: string; threadId: string | null; before: Date | null }): Promise<HistorySnapshot> {
  const thread = opts.threadId
    ? await findThreadForUser({ id: opts.threadId, userId: opts.userId })
    : await findLatestThreadForUser({ userId: opts.userId });
  if (!thread) {
    if (opts.threadId) throw new AppError("NOT_FOUND", `Thread ${opts.threadId} not found`);
    return { scope: "history_day", threadId: null, day: null, hasMore: false, messages: [] };
  }
  const { dayStart, messages, hasMore } = await findHistoryDay({ threadId: thread.id, before: opts.before });
  return {
    scope: "history_day",
    threadId: thread.id,
    day: dayStart ? dayStart.toISOString().slice(0, 10) : null,
    hasMore,
    messages: await Promise.all(messages.filter((m) => m.role === "user" || m.role === "assistant" || m.role === "tool").map(toHistoryMessage)),
  };
}
