import "server-only";
import { firstIssue } from "./input-issues";
import { logger } from "./logger";

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

const DB_UNAVAILABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENOTFOUND", "57P01", "57P03", "08001", "08006", "08003"]);

/** True for errors that mean the database cannot be reached right now. */
export function isDatabaseUnavailable(err: unknown): boolean {
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 6; depth++) {
    const e = cur as { code?: unknown; message?: unknown; cause?: unknown; name?: unknown };
    if (typeof e.code === "string" && DB_UNAVAILABLE_CODES.has(e.code)) return true;
    // A Unix socket (the embedded database's) is a missing file while its server is down.
    if (e.code === "ENOENT" && (e as { syscall?: unknown }).syscall === "connect") return true;
    if (typeof e.name === "string" && e.name === "DriverAdapterError" && typeof e.message === "string" && /connect|terminat|ECONN/i.test(e.message)) return true;
    if (typeof e.message === "string" && /(ECONNREFUSED|Connection terminated|connect ETIMEDOUT|the database system is (starting|shutting) up|Can't reach database)/i.test(e.message)) return true;
    cur = e.cause;
  }
  return false;
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
  logger.error({ err, ...context }, "unhandled error");
  return new AppError("INTERNAL", "Internal server error");
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> };
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
