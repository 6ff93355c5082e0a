// A typed client for the host API (spec §7-9): POST {hostUrl}/api/v1/runner-api/{group}/{action}
// with {run_id, ...params} and the runner secret. Every call is bounded by the smaller of its
// own timeout and the run's deadline (ctx.runtime.deadline_at); failures are HostApiError.
import {
  errorEnvelopeSchema,
  HOST_API_ACTION_NAMES,
  HOST_API_ACTIONS,
  HOST_API_PATH_PREFIX,
  type HostApiActionName,
  type HostApiRequest,
  type HostApiResponse,
  type HostApiStreamingAction,
} from "../../server/protocols/runner/host-api";
import type { AgentRunContext } from "../../server/protocols/runner/context";
import { ndjsonValues } from "./ndjson";

/** A JSON call without its own timeoutMs gets this much (still capped by the run's deadline). */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;
/** A streamed answer line above this size is refused. */
const MAX_STREAM_LINE_BYTES = 8 * 1024 * 1024;

/** AgentAPIError as thrown by the client. status is the HTTP status, 0 when no answer arrived. */
export class HostApiError extends Error {
  readonly code: string;
  readonly retryable: boolean;
  readonly details: Record<string, unknown>;
  readonly status: number;

  constructor(opts: { code: string; message: string; retryable?: boolean; details?: Record<string, unknown>; status: number }) {
    super(opts.message);
    this.name = "HostApiError";
    this.code = opts.code;
    this.retryable = opts.retryable ?? false;
    this.details = opts.details ?? {};
    this.status = opts.status;
  }
}

export type CallOptions = {
  /** Per-call limit; JSON calls default to DEFAULT_CALL_TIMEOUT_MS, streams to the run's deadline only. */
  timeoutMs?: number;
  /** Aborts the call (the run's signal is used by default when the client came from RunTools). */
  signal?: AbortSignal;
};

type Params<A extends HostApiActionName> = Omit<HostApiRequest<A>, "run_id">;
type StreamLine<A extends HostApiActionName> = Exclude<HostApiResponse<A>, { type: "error" }>;
type Method<A extends HostApiActionName> = A extends HostApiStreamingAction
  ? (params: Params<A>, opts?: CallOptions) => AsyncIterable<StreamLine<A>>
  : (params: Params<A>, opts?: CallOptions) => Promise<HostApiResponse<A>>;

type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;
type Group = HostApiActionName extends `${infer G}/${string}` ? G : never;

/** host.models.stream(...), host.tools.call(...), host.artifacts.openStream(...)... one method per action. */
export type HostClient = {
  [G in Group]: { [A in HostApiActionName as A extends `${G}/${infer N}` ? CamelCase<N> : never]: Method<A> };
} & {
  /** Any action by its wire name, for actions newer than this client's typings. */
  call<A extends HostApiActionName>(action: A, params: Params<A>, opts?: CallOptions): Promise<HostApiResponse<A>>;
  stream<A extends HostApiStreamingAction>(action: A, params: Params<A>, opts?: CallOptions): AsyncIterable<StreamLine<A>>;
};

export type HostClientOptions = {
  /** The Dispatch server's origin, e.g. http://127.0.0.1:3000. */
  hostUrl: string;
  /** The runner secret (the same one the host sends to this runner). */
  secret: string;
  /** The run's context: supplies run_id and the deadline. */
  context: Pick<AgentRunContext, "run_id" | "runtime">;
  timeoutMs?: number;
  signal?: AbortSignal;
};

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

async function decodeFailure(res: Response, action: string): Promise<HostApiError> {
  const text = await res.text().catch(() => "");
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: described below from the status
  }
  const envelope = errorEnvelopeSchema.safeParse(body);
  if (envelope.success) return new HostApiError({ ...envelope.data.error, status: res.status });
  const code = res.status === 401 || res.status === 403 ? "unauthorized" : res.status === 404 ? "not_found" : res.status === 413 ? "payload_too_large" : res.status === 429 ? "rate_limited" : "runtime_error";
  return new HostApiError({
    code,
    message: `The host answered HTTP ${res.status} to ${action} without an AgentAPIError${text ? `: ${text.slice(0, 200)}` : ""}`,
    retryable: res.status === 429 || res.status >= 500,
    status: res.status,
  });
}

export function createHostClient(opts: HostClientOptions): HostClient {
  const base = opts.hostUrl.replace(/\/+$/, "");
  const deadlineMs = opts.context.runtime.deadline_at == null ? null : opts.context.runtime.deadline_at * 1000;

  /** Sends one call; the returned `settle` clears its timer once the answer is fully read. */
  async function send(action: HostApiActionName, params: object, callOpts: CallOptions, streaming: boolean) {
    const perCall = callOpts.timeoutMs ?? opts.timeoutMs ?? (streaming ? Infinity : DEFAULT_CALL_TIMEOUT_MS);
    const untilDeadline = deadlineMs === null ? Infinity : deadlineMs - Date.now();
    const limitMs = Math.min(perCall, untilDeadline);
    const byDeadline = untilDeadline <= perCall;
    const timeoutError = () =>
      new HostApiError({
        code: "deadline_exceeded",
        message: byDeadline ? `${action}: the run's deadline has passed` : `${action} took longer than ${perCall} ms`,
        retryable: !byDeadline,
        details: { timeout_ms: Math.max(0, Math.round(limitMs)), run_deadline: byDeadline },
        status: 0,
      });
    if (limitMs <= 0) throw timeoutError();

    const timeout = new AbortController();
    const timer = Number.isFinite(limitMs) ? setTimeout(() => timeout.abort(timeoutError()), limitMs) : undefined;
    const callerSignal = callOpts.signal ?? opts.signal;
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeout.signal]) : timeout.signal;
    const settle = () => clearTimeout(timer);
    // Which limit fired decides what the caller sees: our timeout as HostApiError, their abort as its own reason.
    const rethrow = (err: unknown): never => {
      settle();
      if (timeout.signal.aborted) throw timeout.signal.reason;
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (err instanceof HostApiError) throw err;
      throw new HostApiError({
        code: "runtime_error",
        message: `${action} failed before the host answered in full: ${err instanceof Error ? err.message : String(err)}`,
        retryable: true,
        status: 0,
      });
    };
    try {
      const res = await fetch(`${base}${HOST_API_PATH_PREFIX}/${action}`, {
        method: "POST",
        headers: { authorization: `Bearer ${opts.secret}`, "content-type": "application/json", accept: streaming ? "application/x-ndjson" : "application/json" },
        body: JSON.stringify({ run_id: opts.context.run_id, ...params }),
        signal,
      });
      if (!res.ok) throw await decodeFailure(res, action);
      return { res, settle, rethrow };
    } catch (err) {
      return rethrow(err);
    }
  }

  async function call(action: HostApiActionName, params: object, callOpts: CallOptions = {}): Promise<unknown> {
    const { res, settle, rethrow } = await send(action, params, callOpts, false);
    try {
      const body = (await res.json()) as { ok?: unknown; data?: unknown };
      settle();
      if (body?.ok !== true || !("data" in body)) {
        throw new HostApiError({ code: "runtime_error", message: `The host's answer to ${action} is not {ok: true, data}`, retryable: false, status: res.status });
      }
      return body.data;
    } catch (err) {
      return rethrow(err);
    }
  }

  async function* stream(action: HostApiActionName, params: object, callOpts: CallOptions = {}): AsyncGenerator<unknown> {
    const { res, settle, rethrow } = await send(action, params, callOpts, true);
    let ended = false;
    try {
      for await (const value of ndjsonValues(res.body!, { maxLineBytes: MAX_STREAM_LINE_BYTES })) {
        const line = value as { type?: unknown; error?: unknown };
        if (line.type === "error") {
          const parsed = errorEnvelopeSchema.shape.error.safeParse(line.error);
          throw new HostApiError(
            parsed.success ? { ...parsed.data, status: res.status } : { code: "runtime_error", message: `${action} failed mid-stream`, retryable: true, status: res.status },
          );
        }
        ended = line.type === "final" || line.type === "end";
        yield value;
      }
      if (!ended) throw new HostApiError({ code: "runtime_error", message: `The host's ${action} stream ended before its last line`, retryable: true, status: res.status });
    } catch (err) {
      rethrow(err);
    } finally {
      // A caller that breaks out early lands here too; leaving the for-await above has already cancelled the body.
      settle();
    }
  }

  const client: Record<string, unknown> = { call, stream };
  for (const name of HOST_API_ACTION_NAMES) {
    const [group, action] = name.split("/") as [string, string];
    const methods = (client[group] ??= {}) as Record<string, unknown>;
    methods[camel(action)] = HOST_API_ACTIONS[name].streaming
      ? (params: object, o?: CallOptions) => stream(name, params, o)
      : (params: object, o?: CallOptions) => call(name, params, o);
  }
  return client as HostClient;
}
