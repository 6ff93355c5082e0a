import "server-only";
import { fromLocal, toLocal, type LocalDate } from "../../lib/time";

// The demo model's words: plain summaries of project_cli results, read tolerantly from the
// result JSON the model is given (the same text a real model sees), and its help text.

export type ToolResult = { ok: true; module: string; method: string; data: unknown } | { ok: false; code: string; message: string };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === "string" && v.trim() ? v.trim() : null);

/** Reads project_cli's ToolResponse text: `{module, method, data}` on success, `{status: "failure", error}` otherwise. */
export function parseToolResult(text: string): ToolResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, code: "UNREADABLE_RESULT", message: "the tool answered with something I could not read" };
  }
  if (!isRecord(value)) return { ok: false, code: "UNREADABLE_RESULT", message: "the tool answered with something I could not read" };
  if (value.status === "failure" || value.ok === false || isRecord(value.error)) {
    const error = isRecord(value.error) ? value.error : {};
    return { ok: false, code: str(error.code) ?? "TOOL_FAILURE", message: str(error.message) ?? "the tool reported a failure" };
  }
  return { ok: true, module: str(value.module) ?? "", method: str(value.method) ?? "", data: "data" in value ? value.data : value };
}

/** The first list in `data` under one of `keys` (or `data` itself when it is a list). */
export function listIn(data: unknown, keys: readonly string[]): Record<string, unknown>[] {
  const list = Array.isArray(data) ? data : isRecord(data) ? keys.map((k) => data[k]).find(Array.isArray) : undefined;
  return (list ?? []).filter(isRecord);
}

export function field(record: Record<string, unknown>, ...names: string[]): string | null {
  for (const name of names) {
    const value = str(record[name]);
    if (value) return value;
  }
  return null;
}

export function dayLabel(date: LocalDate, timeZone: string): string {
  const noon = fromLocal({ ...date, hour: 12, minute: 0 }, timeZone);
  return new Intl.DateTimeFormat("en-US", { timeZone, weekday: "long", month: "long", day: "numeric" }).format(noon);
}

function clock(iso: string, timeZone: string): string | null {
  const instant = new Date(iso);
  if (Number.isNaN(instant.getTime())) return null;
  const l = toLocal(instant, timeZone);
  return `${String(l.hour).padStart(2, "0")}:${String(l.minute).padStart(2, "0")}`;
}

function shortDay(iso: string, timeZone: string): string {
  const instant = new Date(iso);
  if (Number.isNaN(instant.getTime())) return "";
  return new Intl.DateTimeFormat("en-US", { timeZone, weekday: "short", month: "short", day: "numeric" }).format(instant);
}

/** A week's events as a Markdown table: day, time, title (a `|` in a title is escaped). */
export function eventTable(events: Record<string, unknown>[], timeZone: string): string {
  const rows = events.map((event) => {
    const title = (field(event, "title", "name") ?? "Untitled event").replace(/\|/g, "\\|");
    const start = field(event, "start_at", "startAt", "start");
    const end = field(event, "end_at", "endAt", "end");
    const allDay = event.all_day === true || event.allDay === true;
    const from = start ? clock(start, timeZone) : null;
    const to = end ? clock(end, timeZone) : null;
    const time = allDay ? "All day" : from ? `${from}${to ? `–${to}` : ""}` : "";
    return `| ${start ? shortDay(start, timeZone) : ""} | ${time} | ${title} |`;
  });
  return ["| Day | Time | Event |", "| --- | --- | --- |", ...rows].join("\n");
}

/** One event of a day as a list item: "- 10:00–10:30 Project sync". */
export function eventLine(event: Record<string, unknown>, timeZone: string): string {
  const title = field(event, "title", "name") ?? "Untitled event";
  const start = field(event, "start_at", "startAt", "start");
  const end = field(event, "end_at", "endAt", "end");
  const allDay = event.all_day === true || event.allDay === true;
  if (!start) return `- ${title}`;
  if (allDay) return `- All day: ${title}`;
  const from = clock(start, timeZone);
  const to = end ? clock(end, timeZone) : null;
  return `- ${from}${to ? `–${to}` : ""} ${title}`;
}

/**
 * Contacts whose name has a word starting with each word of the query ("Ana" is Ana Souza,
 * not Diana), or every contact when none does: the search itself matches substrings.
 */
export function bestContacts(contacts: Record<string, unknown>[], query: string | null): Record<string, unknown>[] {
  if (!query) return contacts;
  const wanted = query.toLowerCase().split(/\s+/).filter(Boolean);
  const close = contacts.filter((c) => {
    const words = (field(c, "name") ?? "").toLowerCase().split(/\s+/);
    return wanted.every((w) => words.some((word) => word.startsWith(w)));
  });
  return close.length > 0 ? close : contacts;
}

export const EVENT_KEYS = ["items", "events"] as const;
export const CONTACT_KEYS = ["items", "contacts"] as const;
export const FACT_KEYS = ["facts", "items"] as const;

/** Second person for echoing the user's own words back ("I prefer" → "you prefer"). */
export function toSecondPerson(text: string): string {
  return text
    .replace(/\bI'm\b/g, "you're")
    .replace(/\bI am\b/g, "you are")
    .replace(/\bI\b/g, "you")
    .replace(/\bmy\b/gi, "your")
    .replace(/\bmine\b/gi, "yours")
    .replace(/\bme\b/gi, "you");
}

export const HELP_TEXT = `I'm Dispatch's offline demo model, so I only understand a few kinds of requests. Try:
- "What's on my calendar tomorrow?" or "What's on my calendar this week?"
- "Schedule a call with Ana on Friday at 10 for 30 minutes"
- "Find Ana's email"
- "Remember that I prefer mornings" and "What do you remember about me?"

For open conversation, connect a real model: set LLM_BASE_URL, LLM_API_KEY and LLM_MODEL for any OpenAI-compatible server (vLLM, Ollama, LM Studio...), or OPENAI_API_KEY for OpenAI. For example, for Ollama:
\`\`\`bash
LLM_BASE_URL=http://localhost:11434/v1
LLM_API_KEY=ollama
LLM_MODEL=llama3.1
\`\`\`
Then restart Dispatch.`;

/**
 * The help for someone who wrote in Chinese: the demo reads only English phrasings, so it says so
 * in Chinese and offers the English examples to copy (a real model answers in any language).
 */
export const HELP_TEXT_ZH = `我是 Dispatch 的离线演示模型，只能理解几种固定的英文请求。可以试试复制下面的例子：
- "What's on my calendar tomorrow?" 或 "What's on my calendar this week?"（查看日程）
- "Schedule a call with Ana on Friday at 10 for 30 minutes"（安排通话）
- "Find Ana's email"（查找联系人）
- "Remember that I prefer mornings" 和 "What do you remember about me?"（记忆）

如需用中文自由对话，请连接真实模型：为任意 OpenAI 兼容的服务（vLLM、Ollama、LM Studio 等）设置 LLM_BASE_URL、LLM_API_KEY 和 LLM_MODEL，或为 OpenAI 设置 OPENAI_API_KEY。例如使用 Ollama：
\`\`\`bash
LLM_BASE_URL=http://localhost:11434/v1
LLM_API_KEY=ollama
LLM_MODEL=llama3.1
\`\`\`
然后重启 Dispatch。`;

/** True when the text has Chinese characters: the demo then answers what it cannot read in Chinese. */
export function writtenInChinese(text: string): boolean {
  return /\p{Script=Han}/u.test(text);
}

export function failureReply(result: { code: string; message: string }): string {
  return `I couldn't complete that: ${result.message.replace(/\.$/, "")}.`;
}
