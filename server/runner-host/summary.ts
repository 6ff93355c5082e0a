import "server-only";
import { generateText } from "ai";
import { DEFAULT_TIME_ZONE } from "../lib/time";
import { logger } from "../logger";
import { MODEL_MAX_RETRIES } from "../models/constants";
import { createAgentModel } from "../models/provider";
import { SUMMARY_SYSTEM_PROMPT, summaryRequest, type SummaryLine } from "../models/summary-prompt";
import { listMessagesBefore } from "../threads/repository/transcript";
import { knownCounts } from "../usage/token-usage";
import { findConversationSummary, saveConversationSummary } from "./repository/summary";

// The summary of a conversation's earlier messages for runners whose context policy is
// summary_tail: made by the run's model through the same model layer runs use (the offline demo
// model answers a deterministic one), kept per conversation, and made again once it is stale:
// when SUMMARY_STALE_AFTER or more messages before the inlined tail are not in it. Its model
// call is added to the usage ledger. A failure is said, never hidden behind the tail alone.

/** How many messages the summary may lag behind the inlined tail before it is made again. */
export const SUMMARY_STALE_AFTER = 4;
/** The earlier messages a summary reads at most (the most recent ones), and their text at most. */
const SOURCE_MESSAGES = 200;
const SOURCE_CHARS = 48_000;
const SUMMARY_TIMEOUT_MS = 30_000;

export type ConversationSummary =
  | { ok: true; summary: string; coversSeq: number; messageCount: number; model: string; refreshed: boolean }
  | { ok: false; reason: string };

/**
 * The summary of the thread's messages before `beforeSeq` (where the inlined tail starts), from the
 * cache while it is fresh. Null when there is nothing before the tail to summarise.
 */
export async function summarizeEarlier(opts: { threadId: string; runId: string; beforeSeq: number; modelId: string; signal?: AbortSignal }): Promise<ConversationSummary | null> {
  const lastEarlier = opts.beforeSeq - 1;
  if (lastEarlier < 1) return null;
  try {
    const cached = await findConversationSummary({ threadId: opts.threadId });
    if (cached && cached.coversSeq <= lastEarlier && lastEarlier - cached.coversSeq < SUMMARY_STALE_AFTER) {
      return { ok: true, summary: cached.summary, coversSeq: cached.coversSeq, messageCount: cached.messageCount, model: cached.model, refreshed: false };
    }
    const newestFirst = await listMessagesBefore({ threadId: opts.threadId, beforeSeq: opts.beforeSeq, limit: SOURCE_MESSAGES });
    if (newestFirst.length === 0) return null;
    const lines: SummaryLine[] = [];
    let chars = 0;
    for (const r of newestFirst) {
      chars += r.content.length;
      if (chars > SOURCE_CHARS && lines.length > 0) break;
      lines.unshift({ role: r.role, content: r.content });
    }
    const made = await summarize(lines, opts);
    if (!made.ok) return made;
    const { summary, model, usage } = made;
    await saveConversationSummary({
      threadId: opts.threadId,
      runId: opts.runId,
      summary,
      coversSeq: lastEarlier,
      messageCount: lines.length,
      model,
      usage,
    });
    return { ok: true, summary, coversSeq: lastEarlier, messageCount: lines.length, model, refreshed: true };
  } catch (err) {
    logger.error({ err, runId: opts.runId }, "could not read or keep a conversation summary");
    return { ok: false, reason: "the host could not read or keep the summary" };
  }
}

/** One model call; a failure is reported by its kind only (the provider's error may carry the transcript). */
async function summarize(lines: SummaryLine[], opts: { runId: string; modelId: string; signal?: AbortSignal }) {
  const { model, info } = createAgentModel({ now: () => new Date(), timeZone: DEFAULT_TIME_ZONE, modelId: opts.modelId });
  try {
    const result = await generateText({
      model,
      system: SUMMARY_SYSTEM_PROMPT,
      prompt: summaryRequest(lines),
      maxRetries: MODEL_MAX_RETRIES,
      abortSignal: AbortSignal.any([AbortSignal.timeout(SUMMARY_TIMEOUT_MS), ...(opts.signal ? [opts.signal] : [])]),
    });
    const summary = result.text.trim();
    if (!summary) return { ok: false as const, reason: "the model answered an empty summary" };
    const u = result.totalUsage;
    return { ok: true as const, summary, model: info.id, usage: knownCounts({ inputTokens: u.inputTokens, outputTokens: u.outputTokens, totalTokens: u.totalTokens }) };
  } catch (err) {
    const reason = err instanceof Error && err.name === "TimeoutError" ? "the model did not answer in time" : "the model call failed";
    logger.warn({ runId: opts.runId, model: info.id, error: err instanceof Error ? err.name : typeof err }, `could not summarise the conversation: ${reason}`);
    return { ok: false as const, reason };
  }
}
