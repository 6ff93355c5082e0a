import type { Dictionary } from "./dictionaries";
import type { Locale } from "./locales";

// What a refused tRPC or REST request tells the person in the chat or the console: a sentence
// of the dictionary, chosen by the error's code (its HTTP status, which tRPC reports too). The
// server's English message is for API clients; it is kept only where it says what to fix in the
// input (a 400/422), where nothing else could say it: as it is in English, after the sentence in
// another language.

export type RequestErrorWords = Dictionary["requestErrors"];

type Kind = Exclude<keyof RequestErrorWords, "detail">;

/** A REST answer's refusal (`{error: {code, message}}`), so it is said like a tRPC one. */
export class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "RequestError";
  }
}

function statusOf(err: unknown): number | null {
  if (err instanceof RequestError) return err.status;
  const status = (err as { data?: { httpStatus?: unknown } } | null)?.data?.httpStatus;
  return typeof status === "number" ? status : null;
}

function kindOf(status: number | null): Kind {
  if (status === null) return "network";
  if (status === 401) return "signedOut";
  if (status === 403) return "forbidden";
  if (status === 404) return "notFound";
  if (status === 409) return "conflict";
  if (status === 413) return "tooLarge";
  if (status === 429) return "rateLimited";
  if (status === 502 || status === 503 || status === 504) return "unavailable";
  if (status >= 400 && status < 500) return "badInput";
  return "server";
}

/** What to fix: tRPC's input issues ("field: message"), else the server's message. */
function whatToFix(err: unknown): string {
  const issues = (err as { data?: { zodIssues?: unknown } } | null)?.data?.zodIssues;
  if (Array.isArray(issues) && issues.length > 0) {
    return (issues as { path?: unknown; message?: unknown }[]).map((i) => (i.path ? `${String(i.path)}: ${String(i.message)}` : String(i.message))).join("; ");
  }
  return err instanceof Error ? err.message : "";
}

/** The words for a failed request, in the page's language. */
export function requestErrorText(err: unknown, words: RequestErrorWords, locale: Locale): string {
  const kind = kindOf(statusOf(err));
  const message = kind === "badInput" ? whatToFix(err) : "";
  if (kind === "badInput" && message) return locale === "en" ? message : `${words.badInput} ${words.detail(message)}`;
  return words[kind];
}
