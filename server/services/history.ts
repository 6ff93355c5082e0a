import "server-only";
import { AppError } from "../errors";
import { UUID_PATTERN } from "../protocols/ag-ui/run-input-rules";
import { findHistoryDay, type HistoryRow } from "../repositories/messages";
import { compileToolUiSchema } from "../tools/project-cli/tool";
import type { UiSchema } from "../ui-schema/schema";
import { attachmentLinks, type AttachmentLink } from "./attachments";
import type { ClaimedApiKey } from "../auth/session";

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

/**
 * A page row as a history message. Plain objects, built without a promise per row: only user
 * messages that have attachments need async work (signing), done afterwards in `signAttachments`.
 */
function toHistoryMessage(m: HistoryRow): HistoryMessage {
  if (m.role === "user") return { id: m.messageId, seq: m.seq, content: m.content, timestamp: m.timestamp, role: "user", url: null, attachments: [] };
  // Compiled with the function TOOL_CALL_RESULT used, so the card is byte-identical to the live one.
  const uiSchema = m.role === "tool" ? compileToolUiSchema(m.toolOutput) : null;
  return { id: m.messageId, seq: m.seq, content: m.content, timestamp: m.timestamp, role: m.role, uiSchema };
}

/** Fresh signed URLs for the user messages that carry attachments; `url` is the first one's. */
async function signAttachments(rows: HistoryRow[], messages: HistoryMessage[], requestOrigin?: string): Promise<void> {
  const signing: Promise<void>[] = [];
  rows.forEach((row, i) => {
    const message = messages[i]!;
    if (row.attachments === null || message.role !== "user") return;
    signing.push(
      attachmentLinks({ metadata: { user_message_attachments: row.attachments }, requestOrigin }).then((links) => {
        message.url = links[0]?.url ?? null;
        message.attachments = links;
      }),
    );
  });
  await Promise.all(signing);
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
  /** The API key `userId` was taken from without a database read (see withCaller), not checked yet. */
  claimedKey?: ClaimedApiKey;
}): Promise<HistorySnapshot> {
  // A thread id that is not a UUID names no thread; checked here so the query's cast cannot fail.
  const found = opts.threadId && !UUID_PATTERN.test(opts.threadId)
    ? { thread: null, day: null, messages: [], hasMore: false }
    : await findHistoryDay({ userId: opts.userId, threadId: opts.threadId, before: opts.before, keyHash: opts.claimedKey?.hash ?? null });
  if (!found.thread) {
    if (opts.threadId) throw new AppError("NOT_FOUND", `Thread ${opts.threadId} not found`);
    return { scope: "history_day", threadId: null, day: null, hasMore: false, messages: [] };
  }
  const messages = found.messages.map(toHistoryMessage);
  await signAttachments(found.messages, messages, opts.requestOrigin);
  return { scope: "history_day", threadId: found.thread, day: found.day, hasMore: found.hasMore, messages };
}
