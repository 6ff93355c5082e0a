// What went wrong, as the chat tells it: a kind the dictionary words (errors.*) for the
// person in front of it, never the server's own text, ids or status codes. The server's
// message stays in the run's log for the console.

export const CHAT_ERROR_KINDS = [
  "busy",
  "notFound",
  "signedOut",
  "forbidden",
  "tooLarge",
  "badInput",
  "rateLimited",
  "server",
  "unavailable",
  "network",
  "generic",
  "closed",
  "runFailed",
  "modelUnavailable",
  "deadline",
] as const;

export type ChatErrorKind = (typeof CHAT_ERROR_KINDS)[number];

/** `stop`: the failure was in stopping a run, which goes on. */
export type ChatError = { kind: ChatErrorKind; stop?: boolean };

/** A refused HTTP request, by status (and the error code Dispatch sends with it). */
export function errorFromStatus(status: number, code?: string): ChatErrorKind {
  if (status === 409 || code === "CONFLICT") return "busy";
  if (status === 401) return "signedOut";
  if (status === 403) return "forbidden";
  if (status === 404) return "notFound";
  if (status === 413) return "tooLarge";
  if (status === 429) return "rateLimited";
  if (status === 503) return "unavailable";
  if (status >= 400 && status < 500) return "badInput";
  return "server";
}

/** A run that ended with RUN_ERROR, by its code. */
export function errorFromRunCode(code: string | undefined): ChatErrorKind {
  if (code === "UPSTREAM_ERROR" || code === "SERVICE_UNAVAILABLE") return "modelUnavailable";
  if (code === "DEADLINE_EXCEEDED") return "deadline";
  return "runFailed";
}
