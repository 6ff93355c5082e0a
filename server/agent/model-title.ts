import "server-only";
import { generateText, type LanguageModel } from "ai";
import { defaultTitle } from "../lib/default-title";
import { logger } from "../logger";
import { traceHeaders } from "../telemetry/tracing";
import { retitleThreadIfDefault } from "./repository";

// A thread's title from a real model: once the first answer is written, one short request (the
// question and the answer's start in, a few words out) names the conversation, and the thread
// takes that name unless it was renamed meanwhile. The offline demo model keeps the title made
// from the question (server/lib/default-title.ts); so does a thread whose request fails.

export const TITLE_SYSTEM_PROMPT =
  "You name conversations. Reply with a title of at most six words saying what the conversation is about, " +
  "in the language of the question. No quotes, no final punctuation, nothing else.";
const INPUT_CHARS = 1_000;
const MAX_OUTPUT_TOKENS = 24;
const TITLE_TIMEOUT_MS = 30_000;

/** The model's reply as a title: its first line without quotes, a "Title:" label or final punctuation, shortened; null when nothing is left. */
export function cleanModelTitle(reply: string): string | null {
  const line = reply
    .split("\n")
    .map((l) => l.trim())
    .find(Boolean);
  if (!line) return null;
  const bare = line
    .replace(/^(title|标题)\s*[:：]\s*/i, "")
    .replace(/^["'“”‘’「」《》*#\s]+/, "")
    .replace(/["'“”‘’「」《》*.。!！\s]+$/, "");
  if (!bare) return null;
  const title = defaultTitle(bare);
  return title === "New chat" ? null : title;
}

/**
 * Asks the model for the thread's title and sets it if the thread still has the title its first
 * question gave it; the title set, or null. Never throws: a title is not worth failing anything for.
 */
export async function titleThreadFromModel(opts: { model: LanguageModel; threadId: string; question: string; answer: string }): Promise<string | null> {
  try {
    const { text } = await generateText({
      model: opts.model,
      // Work the run caused: its trace goes with it, as with the run's own model calls.
      headers: traceHeaders(),
      system: TITLE_SYSTEM_PROMPT,
      prompt: `Question: ${opts.question.slice(0, INPUT_CHARS)}\n\nAnswer: ${opts.answer.slice(0, INPUT_CHARS)}`,
      maxOutputTokens: MAX_OUTPUT_TOKENS,
      maxRetries: 0,
      // Nobody waits for it, so nothing else would end a request the provider never answers.
      abortSignal: AbortSignal.timeout(TITLE_TIMEOUT_MS),
    });
    const title = cleanModelTitle(text);
    if (!title) return null;
    return (await retitleThreadIfDefault({ threadId: opts.threadId, from: defaultTitle(opts.question), to: title })) ? title : null;
  } catch (err) {
    logger.warn({ threadId: opts.threadId, error: err instanceof Error ? err.name : typeof err }, "could not title a thread from its first answer");
    return null;
  }
}
