import "server-only";
import { AppError, toAppError } from "../../kernel/errors";
import {
  HOST_API_ERROR_STATUS,
  UPSTREAM_ERROR_STATUS,
  type AgentAPIError,
  type AgentAPIErrorCode,
} from "../../protocols/runner/host-api";

// The host API's one error type. Everything a call can fail with becomes an AgentAPIError
// {code, message, retryable, details} and an HTTP status, here and nowhere else.

export class HostApiFailure extends Error {
  readonly code: AgentAPIErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly details: Record<string, unknown>;

  constructor(code: AgentAPIErrorCode, message: string, opts: { status?: number; retryable?: boolean; details?: Record<string, unknown> } = {}) {
    super(message);
    this.name = "HostApiFailure";
    this.code = code;
    this.status = opts.status ?? HOST_API_ERROR_STATUS[code];
    this.retryable = opts.retryable ?? code === "rate_limited";
    this.details = opts.details ?? {};
  }

  toError(): AgentAPIError {
    return { code: this.code, message: this.message, retryable: this.retryable, details: this.details };
  }
}

/** 403: a valid runner asked for something its run does not grant. */
export const refused = (message: string, details: Record<string, unknown> = {}) => new HostApiFailure("unauthorized", message, { details });

const APP_CODES: Record<string, AgentAPIErrorCode> = {
  BAD_REQUEST: "invalid_argument",
  UNPROCESSABLE: "invalid_argument",
  VALIDATION_FAILED: "invalid_argument",
  UNAUTHORIZED: "unauthorized",
  FORBIDDEN: "unauthorized",
  NOT_FOUND: "not_found",
  GONE: "not_found",
  PAYLOAD_TOO_LARGE: "payload_too_large",
  RATE_LIMITED: "rate_limited",
  DEADLINE_EXCEEDED: "deadline_exceeded",
};

/**
 * Anything thrown by a check or handler as a HostApiFailure. AppErrors keep their message;
 * downstream failures are runtime_error 502/503 and retryable; unknown faults are logged by
 * toAppError and reported as a bare runtime_error, never as the runner's fault.
 */
export function toHostApiFailure(err: unknown, context: Record<string, unknown>): HostApiFailure {
  if (err instanceof HostApiFailure) return err;
  const app = err instanceof AppError ? err : toAppError(err, context);
  const mapped = APP_CODES[app.code];
  if (mapped) return new HostApiFailure(mapped, app.message, { details: app.details });
  if (err instanceof AppError && err.status >= 500) toAppError(err, context);
  if (app.code === "UPSTREAM_ERROR") return new HostApiFailure("runtime_error", app.message, { status: UPSTREAM_ERROR_STATUS, retryable: true });
  if (app.code === "SERVICE_UNAVAILABLE") return new HostApiFailure("runtime_error", app.message, { status: 503, retryable: true });
  return new HostApiFailure("runtime_error", app.code === "INTERNAL" ? "The host failed to complete the call" : app.message);
}
