import "server-only";
import { firstIssue } from "./input-issues";
import { logger } from "../logger";

// One error type for the whole server. Services throw AppError; each edge (HTTP,
// tRPC, protocol streams) maps it once, with the table below.

export const errorStatus = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  // The Accept header names no representation the endpoint serves.
  NOT_ACCEPTABLE: 406,
  CONFLICT: 409,
  // It existed, and this deployment deleted it on purpose (a run's events past their retention).
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UPSTREAM_ERROR: 502,
  SERVICE_UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return errorStatus[this.code];
  }
}

/**
 * The statement that checked a claimed API key (see withCaller) refused it: revoked, deleted or
 * another user's. Nothing was read or written; the caller checks the key again to say which.
 */
export class ApiKeyRefusedError extends Error {
  constructor(readonly keyHash: string) {
    super("The API key was refused by the statement that checked it");
    this.name = "ApiKeyRefusedError";
  }
}

// SQLSTATEs that mean the database cannot serve us right now: connection exceptions (class 08),
// operator intervention (57P01 shutdown, 57P02 crash, 57P03 starting up or shutting down, 57014 a
// statement cancelled by statement_timeout), too many connections, out of resources; and the
// socket errors of a server that is gone.
const DB_UNAVAILABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENOTFOUND", "EPIPE", "EHOSTUNREACH", "57014", "53300", "53200", "53100"]);
const DB_UNAVAILABLE_CLASSES = ["08", "57P"];
// The driver's own words for a connection it lost or never got, or a statement it gave up on.
const DB_UNAVAILABLE_MESSAGES =
  /(ECONNREFUSED|ECONNRESET|Connection terminated|connect ETIMEDOUT|timeout exceeded when trying to connect|^timeout expired$|Query read timeout|is not queryable|the database system is (starting up|shutting down|in recovery mode|not yet accepting connections)|Can't reach database)/i;

/** True for errors that mean the database cannot be reached right now. */
export function isDatabaseUnavailable(err: unknown): boolean {
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 6; depth++) {
    const e = cur as { code?: unknown; message?: unknown; cause?: unknown; name?: unknown };
    if (typeof e.code === "string" && (DB_UNAVAILABLE_CODES.has(e.code) || DB_UNAVAILABLE_CLASSES.some((c) => (e.code as string).startsWith(c)))) return true;
    // A Unix socket (the embedded database's) is a missing file while its server is down.
    if (e.code === "ENOENT" && (e as { syscall?: unknown }).syscall === "connect") return true;
    if (typeof e.message === "string" && DB_UNAVAILABLE_MESSAGES.test(e.message)) return true;
    cur = e.cause;
  }
  return false;
}

// Input PostgreSQL refuses as text: a NUL (22021 in text, 22P05 in jsonb), a lone surrogate or
// other invalid text representation (22P02), nesting past its stack depth (54001). The edges
// refuse these before they reach the database; this is the last line of defence, the caller's fault.
const DB_INPUT_CODES: Record<string, string> = {
  "22021": "The request contains a character the database cannot store (NUL)",
  "22P05": "The request contains a character the database cannot store (NUL)",
  "22P02": "The request contains a value the database cannot read (for example a lone surrogate)",
  "54001": "The request is nested too deeply",
};

function databaseInputRefusal(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? DB_INPUT_CODES[code] : undefined;
}

/**
 * Turns anything thrown into an AppError the caller may see. Unknown faults become
 * INTERNAL (logged with the original error), database outages SERVICE_UNAVAILABLE;
 * neither ever reports the caller's fault.
 */
export function toAppError(err: unknown, context?: Record<string, unknown>): AppError {
  if (err instanceof AppError) {
    if (err.status >= 500) logger.error({ err, ...context }, err.message);
    return err;
  }
  if (isDatabaseUnavailable(err)) {
    logger.error({ err, ...context }, "database unavailable");
    return new AppError("SERVICE_UNAVAILABLE", "The database is unavailable. Try again shortly.");
  }
  const refusal = databaseInputRefusal(err);
  if (refusal) {
    logger.warn({ err, ...context }, "input refused by the database");
    return new AppError("BAD_REQUEST", refusal);
  }
  logger.error({ err, ...context }, "unhandled error");
  return new AppError("INTERNAL", "Internal server error");
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> };
}

/** Seconds a client should wait before retrying an answer with this status (503), else undefined. */
export const RETRY_AFTER_SECONDS = 5;

/** The Retry-After of a 503, or of a 429 whose details say when (`retryAfterSeconds`). */
export function retryAfter(err: AppError): Record<string, string> | undefined {
  if (err.code === "SERVICE_UNAVAILABLE") return { "retry-after": String(RETRY_AFTER_SECONDS) };
  const seconds = err.details?.retryAfterSeconds;
  return err.code === "RATE_LIMITED" && typeof seconds === "number" ? { "retry-after": String(Math.max(1, Math.ceil(seconds))) } : undefined;
}

export function errorBody(err: AppError): ErrorBody {
  return { error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) } };
}

/** 400 for input that failed its schema, naming the first problem (`field: message`) and its field. */
export function invalidInput(issues: Parameters<typeof firstIssue>[0], fallback = "invalid request"): AppError {
  const first = firstIssue(issues);
  if (!first) return new AppError("BAD_REQUEST", fallback);
  return new AppError("BAD_REQUEST", first.field ? `${first.field}: ${first.message}` : first.message, first.field ? { field: first.field } : undefined);
}
