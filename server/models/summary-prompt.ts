// The request a conversation summary is made with (server/runner-host/summary.ts), shared with the
// offline demo model, which recognises it and answers a deterministic summary of its own.

/** The first line of the summarising request; the transcript follows it. */
export const SUMMARY_REQUEST = "Summarize the conversation below for an assistant that will continue it.";

export const SUMMARY_SYSTEM_PROMPT =
  "You write compact summaries of conversations between a user and an assistant: the user's goals, " +
  "decisions taken, facts and names given, and what is still open. Write plain prose in the conversation's " +
  "language, at most 200 words, with no preamble.";

export type SummaryLine = { role: string; content: string };

/** One line a message, oldest first: `role: text`. */
export function summaryRequest(lines: readonly SummaryLine[]): string {
  return `${SUMMARY_REQUEST}\n\n${lines.map((l) => `${l.role}: ${l.content.replace(/\s+/g, " ").trim()}`).join("\n")}`;
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * The demo model's summary of a summarising request: how many messages, the first and the latest
 * thing the user said. Deterministic, so tests and offline demos can check it.
 */
export function demoSummary(request: string): string {
  const lines = request.slice(SUMMARY_REQUEST.length).split("\n").filter((l) => l.trim().length > 0);
  const asked = lines.filter((l) => l.startsWith("user: ")).map((l) => l.slice("user: ".length));
  const first = asked[0];
  const last = asked.at(-1);
  const counted = `Summary of ${lines.length} earlier ${lines.length === 1 ? "message" : "messages"}.`;
  if (!first || !last) return counted;
  const latest = last === first ? "" : ` Latest request: "${clip(last, 120)}".`;
  return `${counted} The user first asked: "${clip(first, 120)}".${latest}`;
}
