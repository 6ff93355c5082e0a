import "server-only";
import { AppError } from "../../kernel/errors";
import type { HistoryMessage, HistorySnapshot } from "../../protocols/ag-ui/history";
import { findHistoryDay, HISTORY_PLACEHOLDER, type HistoryChunk, type HistoryRow } from "../repository/messages";
import { approvalWithCard, storedApprovalId } from "../../approvals/preview";
import { findApprovals, type ApprovalRow } from "../../approvals/repository";
import { compileToolUiSchema } from "../../tools/project-cli/tool";
import { attachmentLinks } from "../../attachments/service";
import { threadNamed } from "./thread-names";
import type { ClaimedApiKey } from "../../auth/session";
import { jsonText, type JsonText } from "../../lib/json-text";
import { nonEmptyState } from "../../thread-state/service";
import { branchPointsOfDay } from "../../branches/service";

/**
 * A message the database leaves to the server: a tool result, whose card is compiled here, a
 * user message with attachments, whose URLs are signed on each read (signAttachments), or the
 * model's reasoning (dispatch_history_json renders only user and assistant messages). The
 * database renders every other message when it is written (messages.history_json, from
 * prisma/sql/functions/dispatch_history_json.sql); both follow historyMessageSchema.
 */
function toHistoryMessage(m: HistoryRow, approvals: ReadonlyMap<string, ApprovalRow>, locale: string | undefined): HistoryMessage {
  if (m.role === "user") return { id: m.messageId, seq: m.seq, content: m.content, timestamp: m.timestamp, role: "user", url: null, attachments: [] };
  if (m.role === "reasoning") return { id: m.messageId, seq: m.seq, content: m.content, timestamp: m.timestamp, role: "reasoning", durationMs: m.durationMs ?? null };
  // A call waiting for approval: its approval card and what can be done with it, as they stand now (server/approvals).
  const approval = m.role === "tool" ? approvals.get(storedApprovalId(m.approval) ?? "") : undefined;
  if (approval) {
    const { view, uiSchema } = approvalWithCard(approval, { locale });
    return { id: m.messageId, seq: m.seq, content: m.content, timestamp: m.timestamp, role: "tool", uiSchema, approval: view };
  }
  // Compiled with the function TOOL_CALL_RESULT used, so the card is byte-identical to the live one.
  const uiSchema = m.role === "tool" ? compileToolUiSchema(m.toolOutput, locale) : null;
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

/** Each chunk's text with the messages the server renders put in place of their placeholders. */
async function chunkTexts(chunks: HistoryChunk[], opts: { requestOrigin?: string; locale?: string }): Promise<string[]> {
  const rows = chunks.flatMap((c) => c.rows);
  if (rows.length === 0) return chunks.map((c) => c.json);
  const approvalIds = rows.flatMap((r) => (r.role === "tool" ? [storedApprovalId(r.approval)].filter((id): id is string => id !== null) : []));
  const approvals = new Map(approvalIds.length > 0 ? (await findApprovals({ ids: approvalIds })).map((a) => [a.id, a]) : []);
  const messages = rows.map((row) => toHistoryMessage(row, approvals, opts.locale));
  await signAttachments(rows, messages, opts.requestOrigin);
  let next = 0;
  const texts = chunks.map((c) => (c.rows.length === 0 ? c.json : c.json.replaceAll(HISTORY_PLACEHOLDER, () => JSON.stringify(messages[next++]))));
  if (next !== messages.length) throw new Error(`A history page had ${messages.length} messages for the server to render and ${next} places for them`);
  return texts;
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

/** The `locale` a reader of /history asks its cards in: a BCP 47 tag (e.g. zh-CN), or absent for English. */
export function parseHistoryLocale(raw: string | null): string | undefined {
  if (raw === null || raw === "") return undefined;
  try {
    const [canonical] = Intl.getCanonicalLocales(raw);
    if (canonical) return canonical;
  } catch {
    // Reported below.
  }
  throw new AppError("BAD_REQUEST", "locale must be a language tag such as en or zh-CN", { field: "locale" });
}

type HistoryDayOptions = {
  userId: string;
  threadId: string | null;
  before: Date | null;
  /** Origin for attachment URLs served by the app itself, when PUBLIC_URL is not set. */
  requestOrigin?: string;
  /** The API key `userId` was taken from without a database read (see withCaller), not checked yet. */
  claimedKey?: ClaimedApiKey;
  /** The language of the cards (BCP 47, the reader's); English when absent. */
  locale?: string;
  /** Include the model's reasoning messages (the web chat, `reasoning=true`); the spec's page has none. */
  reasoning?: boolean;
};

/** The page's header and its messages as JSON texts, each a comma-separated run of messages. */
async function readHistoryDay(opts: HistoryDayOptions): Promise<{ header: Omit<HistorySnapshot, "messages">; texts: string[] }> {
  // A threadId other than a UUID is the caller's name for a thread of theirs (thread-names.ts);
  // the page answers with the id it was asked for.
  const thread = opts.threadId ? threadNamed(opts.userId, opts.threadId) : null;
  const found = await findHistoryDay({ userId: opts.userId, threadId: thread?.threadId ?? null, before: opts.before, keyHash: opts.claimedKey?.hash ?? null, reasoning: opts.reasoning });
  if (!found.thread) {
    if (opts.threadId) throw new AppError("NOT_FOUND", `Thread ${opts.threadId} not found`);
    return { header: { scope: "history_day", threadId: null, day: null, hasMore: false }, texts: [] };
  }
  const [texts, branches] = await Promise.all([chunkTexts(found.chunks, opts), branchPointsOfDay({ threadId: found.thread, branched: found.branched, day: found.day })]);
  const state = nonEmptyState(found.state);
  const header = { scope: "history_day", threadId: thread?.named ? thread.name : found.thread, day: found.day, hasMore: found.hasMore } as const;
  // The spec's page as it was for a thread without state or branches.
  return { header: { ...header, ...(state ? { state } : {}), ...(branches.length > 0 ? { branches } : {}) }, texts };
}

/** One day of a thread's history (UTC days), newest first by day, messages in seq order. */
export async function getHistoryDay(opts: HistoryDayOptions): Promise<HistorySnapshot> {
  const { header, texts } = await readHistoryDay(opts);
  return { ...header, messages: texts.length === 0 ? [] : (JSON.parse(`[${texts.join(",")}]`) as HistoryMessage[]) };
}

/**
 * The same page as getHistoryDay, as the pieces of its JSON text: the texts the database rendered
 * go out as they came, without being parsed into objects and serialized again, and are encoded
 * only where the page is written (server/http/page-buffers.ts says why there).
 */
export async function getHistoryDayText(opts: HistoryDayOptions): Promise<JsonText> {
  const { header, texts } = await readHistoryDay(opts);
  const head = JSON.stringify(header);
  const pieces = [`${head.slice(0, -1)},"messages":[`];
  // Commas as pieces of their own: "," + text would be a new string a page long to flatten.
  texts.forEach((text, i) => (i > 0 ? pieces.push(",", text) : pieces.push(text)));
  pieces.push("]}");
  return jsonText(pieces);
}
