import "server-only";

// project_cli's own error type. Its codes go back to the model as data it can act on, so
// they name the problem (EVENT_NOT_FOUND, INVALID_ACTION_INPUT), not an HTTP status. No zod
// here: the CLI executable uses this file, and its schema (toolErrorSchema) is in router.ts.

export type ToolErrorBody = { code: string; message: string; retryable?: boolean; [detail: string]: unknown };

export class ToolError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown>;
  readonly retryable: boolean;

  constructor(code: string, message: string, opts: { details?: Record<string, unknown>; retryable?: boolean } = {}) {
    super(message);
    this.name = "ToolError";
    this.code = code;
    this.details = opts.details ?? {};
    this.retryable = opts.retryable ?? false;
  }

  toBody(): ToolErrorBody {
    return { code: this.code, message: this.message, ...this.details, ...(this.retryable ? { retryable: true } : {}) };
  }
}

/** Another user's row and a missing row look the same, so ids cannot be probed. */
export function notFound(what: string, id: string): ToolError {
  return new ToolError(`${what.toUpperCase()}_NOT_FOUND`, `No ${what} with id ${id}`);
}
