import "server-only";
import { cancelAndWait, cancelRun } from "./cancel";
import { closeIfAbandoned } from "./recovery";
import { env } from "../env";
import { INSTANCE_ID } from "../lib/instance-id";
import { runDeadline } from "./function-limits";
import { ApiKeyRefusedError, AppError } from "../kernel/errors";
import { acceptRunRow, type AcceptRunInput, findRunByClientId, type RunFork, type RunRow, type RunToolMessage } from "./repository/runs";
import { findWaitingRuns } from "./repository/run-queue";
import { budgetExceeded, DEFAULT_BUDGETS } from "../usage/budgets";
import { runReservation } from "../usage/reservation";
import { metrics } from "../telemetry/metrics";
import { dbSpan, runTraceOf } from "../telemetry/tracing";
import { userMessageParts, type RunAgentInput } from "../protocols/ag-ui/run-input";
import type { EntryEvent } from "../runner-host/entry-events";
import type { MultitaskStrategy } from "../protocols/ag-ui/multitask";
import { opening, type Opening } from "./opening";
import { defaultTitle } from "../lib/default-title";
import type { ContextPrefetch, GenerationParams, PrefetchedContext } from "../kernel/runs";

/**
 * `position`: the run waits its turn on a busy thread (the enqueue policy), this place in line (1: next).
 * `opened`: the opening events the accepting statement wrote into the log of a run started here (opening.ts).
 */
export type AcceptedRun = { run: RunRow; created: boolean; prefetched?: PrefetchedContext; position?: number; opened?: Opening };

/** The run was planned with a binding that is no longer the effective one; nothing was written. */
export class StalePlanError extends Error {
  constructor() {
    super("The run's binding changed while it was planned");
    this.name = "StalePlanError";
  }
}

const UNIQUE_VIOLATION = "23505";

// Signed URLs in the input are credentials for a while; the run record keeps only where
// the object is (scheme, host, path), never the query that grants access.
function withoutUrlTokens(input: RunAgentInput): RunAgentInput {
  const strip = (url: string) => {
    try {
      const u = new URL(url);
      return `${u.origin}${u.pathname}`;
    } catch {
      return "[invalid url]";
    }
  };
  return {
    ...input,
    messages: input.messages.map((m) =>
      m.role === "user" && Array.isArray(m.content)
        ? {
            ...m,
            content: m.content.map((part) =>
              part.type === "binary" && part.url
                ? { ...part, url: strip(part.url) }
                : part.type === "image" && part.source.type === "url"
                  ? { ...part, source: { ...part.source, value: strip(part.source.value) } }
                  : part.type === "document"
                    ? { ...part, source: { ...part.source, value: strip(part.source.value) } }
                    : part,
            ),
          }
        : m,
    ),
  };
}

/** A runId names a run of one thread: the same runId on another thread is refused, never that thread's run. */
export function sameThread(run: RunRow, input: Pick<RunAgentInput, "runId" | "threadId">): RunRow {
  if (run.threadId === input.threadId) return run;
  throw new AppError("CONFLICT", `runId ${input.runId} already names a run of another thread; use a new runId for each run`, { field: "runId" });
}

/** The thread as its client named it, for messages that name it (RunAgentInput.threadName). */
const threadName = (input: RunAgentInput) => input.threadName ?? input.threadId;

/**
 * Records a new run and its user message, or returns the run this user already started
 * with the same runId. The thread is created for the caller on first use; someone else's
 * thread is "not found", and a thread with a run in progress is busy. One round trip.
 */
export async function acceptRun(opts: {
  userId: string;
  input: RunAgentInput;
  protocol: string;
  runner: string;
  userMessageMetadata?: Record<string, unknown>;
  /** The entry event this run answers, the binding that chose the runner and the run's frozen authorization. */
  entry?: EntryEvent;
  bindingId?: string | null;
  authorization?: unknown;
  /** Shorter than RUN_DEADLINE_SECONDS when the binding asks for it. */
  deadlineSeconds?: number;
  /** Record the run as running (its executor starts right away) rather than queued. */
  start?: boolean;
  /** The starting context its runner asked for, read in the same round trip. */
  prefetch?: ContextPrefetch;
  /** The plan's binding, when it came from a cached copy (see binding-snapshot.ts). */
  bindingCheck?: unknown;
  /** The caller's API key, not checked yet: checked in the statement that accepts the run. */
  apiKeyHash?: string;
  /** The client's answers to the thread's open frontend tool calls, stored before the user message. */
  toolMessages?: RunToolMessage[];
  /** Fork the thread before the run's messages are written (docs/branches.md). */
  fork?: RunFork;
  /** The API key the caller came with (none: the browser session): recorded, and its budgets apply. */
  apiKeyId?: string | null;
  /** The sampling parameters, recorded for an executor that takes the run over. */
  generation?: GenerationParams;
  /** A busy thread: refuse (the default), queue this run behind its run, or cancel what it has in progress, wait for it to end, then start. */
  multitaskStrategy?: MultitaskStrategy;
}): Promise<AcceptedRun> {
  return acceptRunAttempt(opts, { supersededAbandoned: false, interrupted: false });
}

// How long a run that interrupts the thread's run in progress waits for it to end.
const INTERRUPT_WAIT_MS = 10_000;

/** What the accepting statement writes for this request: the run, its user message, its checks. */
function acceptRowInput(opts: Parameters<typeof acceptRun>[0], opened: ReturnType<typeof opening> | undefined): AcceptRunInput {
  const { userId, input } = opts;
  const user = userMessageParts(input);
  // The starting request's trace (a fresh one outside any): its runner and model calls join it.
  const runTrace = runTraceOf();
  return {
    run: {
      runId: input.runId,
      threadId: input.threadId,
      userId,
      protocol: opts.protocol,
      runner: opts.runner,
      input: withoutUrlTokens(input),
      deadlineAt: runDeadline(Math.min(env.RUN_DEADLINE_SECONDS, opts.deadlineSeconds ?? Infinity)),
      bindingId: opts.bindingId ?? null,
      authorization: opts.authorization ?? null,
      eventId: opts.entry?.id ?? null,
      generation: opts.generation,
      trace: runTrace,
    },
    threadTitle: defaultTitle(user.text),
    message: user.fromUser
      ? { messageId: user.messageId, content: user.text, metadata: { run_id: input.runId, message_id: user.messageId, stage: "input", ...opts.userMessageMetadata } }
      : null,
    toolMessages: opts.toolMessages,
    fork: opts.fork,
    entry: opts.entry ?? null,
    start: opts.start ?? false,
    prefetch: opts.prefetch,
    bindingCheck: opts.bindingCheck,
    apiKeyHash: opts.apiKeyHash,
    apiKeyId: opts.apiKeyId,
    budgets: DEFAULT_BUDGETS,
    reservedTokens: runReservation(input, opts.generation),
    enqueue: opts.multitaskStrategy === "enqueue",
    // A run started here executes here: its first attempt is this instance's.
    executor: opts.start ? INSTANCE_ID : undefined,
    opening: opened?.records,
  };
}

async function acceptRunAttempt(opts: Parameters<typeof acceptRun>[0], tried: { supersededAbandoned: boolean; interrupted: boolean }): Promise<AcceptedRun> {
  const { userId, input } = opts;
  // A run started here has its opening events written by the statement that accepts it.
  const opened = opts.start ? opening(input, input) : undefined;
  // Made before the statement's span opens: the run's trace context is the request's, not the span's.
  const row = acceptRowInput(opts, opened);
  let outcome;
  try {
    outcome = await dbSpan("dispatch_accept_run", () => acceptRunRow(row));
  } catch (err) {
    // Two requests with the same runId raced; the other one won, and it is the same task.
    if ((err as { code?: string }).code === UNIQUE_VIOLATION) {
      const winner = await findRunByClientId({ userId, runId: input.runId });
      if (winner) return { run: sameThread(winner, input), created: false };
    }
    throw err;
  }
  switch (outcome.status) {
    case "created":
      return { run: outcome.run, created: true, prefetched: outcome.context ?? undefined, ...(opened ? { opened } : {}) };
    case "queued":
      metrics.runsEnqueued.inc();
      return { run: outcome.run, created: true, position: outcome.position };
    case "existing":
      return { run: outcome.run, created: false };
    case "run_id_taken":
      return { run: sameThread(outcome.run, input), created: false };
    case "replan":
      throw new StalePlanError();
    case "key_refused":
      throw new ApiKeyRefusedError(opts.apiKeyHash!);
    case "limited":
      metrics.refusals.inc({ limit: outcome.refusal.limit });
      throw budgetExceeded(outcome.refusal);
    case "busy":
      // A run whose executor stopped reporting does not keep its thread busy: it is closed, and
      // this run takes its place.
      if (!tried.supersededAbandoned && (await closeIfAbandoned({ userId, runId: outcome.busyRunId }))) return acceptRunAttempt(opts, { ...tried, supersededAbandoned: true });
      if (opts.multitaskStrategy === "interrupt" && !tried.interrupted) {
        // The runs waiting their turn go first, so the end of the run in progress hands the turn to none of them.
        for (const waiting of await findWaitingRuns({ threadId: input.threadId })) await cancelRun(waiting);
        const active = await findRunByClientId({ userId, runId: outcome.busyRunId });
        if (active) await cancelAndWait(active, INTERRUPT_WAIT_MS);
        return acceptRunAttempt(opts, { ...tried, interrupted: true });
      }
      throw new AppError(
        "CONFLICT",
        tried.interrupted
          ? `Thread ${threadName(input)} still has a run in progress (${outcome.busyRunId}): it was cancelled but did not end in time; try again`
          : `Thread ${threadName(input)} already has a run in progress (${outcome.busyRunId}); wait for it to finish, cancel it, send multitaskStrategy "enqueue" to start this one after it, or "interrupt" to cancel it and start this one`,
        { activeRunId: outcome.busyRunId },
      );
    default:
      throw new AppError("NOT_FOUND", `Thread ${threadName(input)} not found`);
  }
}
