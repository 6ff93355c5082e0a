import "server-only";
import { AppError } from "../errors";
import { UUID_PATTERN } from "../protocols/ag-ui/run-input-rules";
import { findHistoryDay, type MessageRow } from "../repositories/messages";
import { compileToolUiSchema } from "../tools/project-cli/tool";
import type { UiSchema } from "../ui-schema/schema";
import { attachmentLinks, type AttachmentLink } from "./attachments";

export type HistoryMessage =
  // `url` is the first attachment's; `attachments` has every one, each with a freshly signed URL.
  | { id: string; seq: number; role: "user"; content: string; url: string | null; attachments: AttachmentLink[]; timestamp: string }
  | { id: string; seq: number; role: "tool" | "assistant"; content: string; uiSchema: UiSchema | null; timestamp: string };

export type HistorySnapshot = {
  scope: "history_day";
  threadId: string | null;
  day: string | null;
  hasMore: boolean;
  messages: HistoryMessage[];
};

function toolUiSchema(m: MessageRow): UiSchema | null {
  return compileToolUiSchema(m.metadata.tool_agent_output);
}

async function toHistoryMessage(m: MessageRow, requestOrigin?: string): Promise<HistoryMessage> {
  const base = { id: m.messageId, seq: m.seq, content: m.content, timestamp: m.createdAt.toISOString() };
  if (m.role === "user") {
    const attachments = await attachmentLinks({ metadata: m.metadata, requestOrigin });
    return { ...base, role: "user", url: attachments[0]?.url ?? null, attachments };
  }
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
export async function getHistoryDay(opts: {
  userId: string;
  threadId: string | null;
  before: Date | null;
  /** Origin for attachment URLs served by the app itself, when PUBLIC_URL is not set. */
  requestOrigin?: string;
}): Promise<HistorySnapshot> {
  // A thread id that is not a UUID names no thread; checked here so the query's cast cannot fail.
  const found = opts.threadId && !UUID_PATTERN.test(opts.threadId)
    ? { thread: null, dayStart: null, messages: [], hasMore: false }
    : await findHistoryDay({ userId: opts.userId, threadId: opts.threadId, before: opts.before });
  if (!found.thread) {
    if (opts.threadId) throw new AppError("NOT_FOUND", `Thread ${opts.threadId} not found`);
    return { scope: "history_day", threadId: null, day: null, hasMore: false, messages: [] };
  }
  const { dayStart, messages, hasMore } = found;
  return {
    scope: "history_day",
    threadId: found.thread,
    day: dayStart ? dayStart.toISOString().slice(0, 10) : null,
    hasMore,
    messages: await Promise.all(messages.filter((m) => m.role === "user" || m.role === "assistant" || m.role === "tool").map((m) => toHistoryMessage(m, opts.requestOrigin))),
  };
}
