import "server-only";
import { getPool, noteWrite } from "../../db";
import { endOpenAttemptSql } from "./run-attempts";
import type { RunModel } from "../../generated/prisma/models";
import type { ContextPrefetch, PrefetchedContext, PrefetchedMessage, TokenUsage } from "../../kernel/runs";
import { newestFirstPage, sqlFilters, type Db } from "../../kernel/sql";
import { toRunMcpServer, type RunMcpServerJson } from "../../tools/repository/run-mcp-servers";

/** A run as the engine reads it; `usage` is the JSON the executor stored. */
export type RunRow = Pick<
  RunModel,
  "id" | "runId" | "threadId" | "userId" | "status" | "protocol" | "runner" | "model" | "errorCode" | "errorMessage" | "createdAt" | "startedAt" | "finishedAt" | "deadlineAt" | "traceParent" | "traceState"
> & { usage: TokenUsage | null };

const RUN_COLUMNS = `id, run_id as "runId", thread_id as "threadId", user_id as "userId", status, protocol, runner, model,
  error_code as "errorCode", error_message as "errorMessage", usage, created_at as "createdAt", started_at as "startedAt",
  finished_at as "finishedAt", deadline_at as "deadlineAt", trace_parent as "traceParent", trace_state as "traceState"`;

export async function findRunByClientId({ userId, runId }: { userId: string; runId: string }, db: Db = getPool()): Promise<RunRow | null> {
  const { rows } = await db.query<RunRow>(`select ${RUN_COLUMNS} from runs where user_id = $1 and run_id = $2`, [userId, runId]);
  return rows[0] ?? null;
}

export async function findRunById({ id }: { id: string }): Promise<RunRow | null> {
  const { rows } = await getPool().query<RunRow>(`select ${RUN_COLUMNS} from runs where id = $1`, [id]);
  return rows[0] ?? null;
}

export type NewRun = {
  runId: string;
  threadId: string;
  userId: string;
  protocol: string;
  runner: string;
  input: unknown;
  deadlineAt: Date;
  bindingId?: string | null;
  authorization?: unknown;
  eventId?: string | null;
  /** The sampling parameters the protocol passed, kept for an executor that takes the run over. */
  generation?: Record<string, unknown>;
  /** The run's W3C trace context, for its runner and model calls wherever it executes. */
  trace?: { traceParent: string; traceState: string | null };
};

export type RunUserMessage = { messageId: string; content: string; metadata: Record<string, unknown> };
/** A client's answer to one of the thread's open frontend tool calls, stored as a tool message. */
/**
 * A message a run brings besides its user message: an answer to an open frontend tool call (a tool
 * message of the run), or, with `role`, an earlier turn seeding a new thread (no run of its own).
 */
/**
 * Where a run forks its thread (docs/branches.md): at the current branch's message with this
 * protocol id (an edited message: it and what follows leave the branch), or after it with `keep`
 * (a regenerated answer: what follows it leaves the branch).
 */
export type RunFork = { messageId: string; keep: boolean };

export type RunToolMessage = { messageId: string; content: string; metadata: Record<string, unknown>; role?: "user" | "assistant" | "tool" };

export type AcceptOutcome =
  | { status: "replan" }
  | { status: "created"; run: RunRow; context: PrefetchedContext | null }
  | { status: "queued"; run: RunRow; position: number }
  | { status: "existing"; run: RunRow }
  | { status: "not_found" }
  | { status: "busy"; busyRunId: string }
  | { status: "run_id_taken"; run: RunRow }
  | { status: "key_refused" }
  | { status: "limited"; refusal: BudgetRefusal };

/** What dispatch_run_limits answers for a run that would exceed a budget. */
export type BudgetRefusal = {
  limit: "tokens_per_day" | "runs_per_minute" | "concurrent_runs";
  scope: "user" | "api_key";
  max: number;
  used: number;
  /** tokens_per_day: the tokens the user's (or key's) runs in progress hold besides `used` (the ended runs'). */
  reserved?: number;
  retryAfterSeconds: number;
  /** When the limit's window frees up (ISO 8601, UTC): the next 00:00 UTC for tokens_per_day. */
  resetsAt?: string;
};

/** A refusal as dispatch_run_limits answers it. */
export type BudgetRefusalJson = { limit: BudgetRefusal["limit"]; scope: BudgetRefusal["scope"]; max: number | string; used: number | string; reserved?: number | string; retry_after: number; resets_at?: string };

export function toBudgetRefusal(r: BudgetRefusalJson): BudgetRefusal {
  return {
    limit: r.limit,
    scope: r.scope,
    max: Number(r.max),
    used: Number(r.used),
    ...(r.reserved !== undefined ? { reserved: Number(r.reserved) } : {}),
    retryAfterSeconds: r.retry_after,
    ...(r.resets_at ? { resetsAt: r.resets_at } : {}),
  };
}

/** The environment's default budgets, as dispatch_run_limits takes them; an absent one is no limit. */
export type DefaultBudgets = { tokens_per_day?: number; runs_per_minute?: number; concurrent_runs?: number };

export type AcceptRunInput = {
  run: NewRun;
  threadTitle: string;
  /** The run's new user message; null for a run that only brings tool answers. */
  message: RunUserMessage | null;
  toolMessages?: RunToolMessage[];
  /** The thread forks before the run's messages are written. */
  fork?: RunFork;
  entry: { id: string; eventType: string; source: string; sourceEventType: string | null; data: unknown; rawRef: unknown } | null;
  start: boolean;
  /** Also read the thread history and memory facts a runner starts from (see ContextPrefetch). */
  prefetch?: ContextPrefetch;
  /** The binding the plan chose from a cached copy; "replan" when it is not the effective one. */
  bindingCheck?: unknown;
  /**
   * The SHA-256 of the API key the caller claims to be the user with: checked (exists, not
   * revoked, this user's, the user not deactivated) in the same statement, which writes nothing and answers "key_refused"
   * when it does not hold.
   */
  apiKeyHash?: string;
  /** The API key the caller came with, recorded on the run; its budgets apply as well as the user's. */
  apiKeyId?: string | null;
  /** Checked before anything is written (dispatch_run_limits): "limited" when the run would exceed one. */
  budgets: DefaultBudgets;
  /** A busy thread queues the run (answer "queued") instead of refusing it (the enqueue policy). */
  enqueue?: boolean;
  /** The instance that executes a run `start`ed here: recorded as its first attempt in the same statement. */
  executor?: string;
  /** The opening events of a run `start`ed here (seq 1..n): written as its log's first batch in the same statement. */
  opening?: { type: string; json: string }[];
  /** The tokens the run holds of its daily token budgets while it is in progress (server/usage/reservation.ts). */
  reservedTokens: number;
};

/** What dispatch_accept_run answers. */
type AcceptResultJson = { status: AcceptOutcome["status"]; run?: RunRow; busy_run_id?: string; position?: number; context?: AgentContextJson | null } & Partial<Omit<BudgetRefusal, "retryAfterSeconds" | "resetsAt">> & {
      retry_after?: number;
      resets_at?: string;
    };

/**
 * dispatch_accept_run's one argument, a document naming every field (the function's file lists
 * them); an absent field is left out rather than null, which the function reads as "none".
 */
function acceptDocument({ run, threadTitle, message, toolMessages, fork, entry, start, prefetch, bindingCheck, apiKeyId, budgets, enqueue = false, executor, opening, reservedTokens }: AcceptRunInput): string {
  return JSON.stringify({
    user_id: run.userId,
    thread_id: run.threadId,
    title: threadTitle,
    run_id: run.runId,
    protocol: run.protocol,
    runner: run.runner,
    input: run.input,
    deadline_at: run.deadlineAt.toISOString(),
    binding_id: run.bindingId ?? undefined,
    authorization: run.authorization ?? undefined,
    start,
    message: message ? { message_id: message.messageId, content: message.content, metadata: message.metadata } : undefined,
    entry: entry
      ? { id: entry.id, event_type: entry.eventType, source: entry.source, source_event_type: entry.sourceEventType, data: entry.data, raw_ref: entry.rawRef }
      : undefined,
    history_limit: prefetch?.historyLimit ?? 0,
    memory_limit: prefetch?.memoryLimit ?? 0,
    binding_check: bindingCheck ?? undefined,
    tool_messages: toolMessages?.length
      ? toolMessages.map((m) => ({ message_id: m.messageId, content: m.content, metadata: m.metadata, ...(m.role ? { role: m.role } : {}) }))
      : undefined,
    fork: fork ? { message_id: fork.messageId, keep: fork.keep } : undefined,
    api_key_id: apiKeyId ?? undefined,
    limits: budgets,
    generation: run.generation && Object.keys(run.generation).length > 0 ? run.generation : undefined,
    enqueue,
    instance: executor,
    opening_types: opening?.length ? opening.map((e) => e.type).join(" ") : undefined,
    opening_events: opening?.length ? opening.map((e) => e.json).join("\n") : undefined,
    trace_parent: run.trace?.traceParent,
    trace_state: run.trace?.traceState ?? undefined,
    reserved_tokens: reservedTokens,
  });
}

function toAcceptOutcome(result: AcceptResultJson): AcceptOutcome {
  switch (result.status) {
    case "created":
      return { status: "created", run: toRunRow(result.run!), context: result.context ? toPrefetchedContext(result.context) : null };
    case "existing":
      return { status: "existing", run: toRunRow(result.run!) };
    case "queued":
      return { status: "queued", run: toRunRow(result.run!), position: Number(result.position) };
    case "busy":
      return { status: "busy", busyRunId: result.busy_run_id! };
    case "run_id_taken":
      return { status: "run_id_taken", run: toRunRow(result.run!) };
    case "replan":
      return { status: "replan" };
    case "key_refused":
      return { status: "key_refused" };
    case "limited":
      return { status: "limited", refusal: toBudgetRefusal(result as BudgetRefusalJson) };
    default:
      return { status: "not_found" };
  }
}

/**
 * Records a run, its user message and its entry event in one round trip (the
 * dispatch_accept_run function: the runId looked up, the thread created or locked, then the
 * checks and writes; it answers json), or
 * writes nothing when this user already has a run with that runId, the thread is someone
 * else's or has a run in progress. `start` records the run as running: its executor starts now.
 */
export async function acceptRunRow(input: AcceptRunInput): Promise<AcceptOutcome> {
  const { apiKeyHash } = input;
  const { rows } = await getPool().query<{ result: AcceptResultJson }>({
    ...(apiKeyHash === undefined
      ? { name: "dispatch-accept-run", text: `select dispatch_accept_run($1) as result`, values: [acceptDocument(input)] }
      : {
          // CASE evaluates the (volatile) function only when the key holds.
          name: "dispatch-accept-run-with-key",
          text: `select case when exists (select 1 from api_keys k join users u on u.id = k.user_id
              where k.key_hash = $2 and k.user_id = ($1::jsonb->>'user_id')::uuid and k.revoked_at is null and u.disabled_at is null)
            then dispatch_accept_run($1) else '{"status":"key_refused"}'::json end as result`,
          values: [acceptDocument(input), apiKeyHash],
        }),
  });
  noteWrite(input.run.userId);
  return toAcceptOutcome(rows[0]!.result);
}

/** What dispatch_agent_context answers. */
export type AgentContextJson = {
  history: (PrefetchedMessage & { seq: number })[];
  memory: { key: string; value: string }[];
  hiddenSkills: string[] | null;
  unresolvedApprovals: boolean;
  mcpServers: RunMcpServerJson[];
};

export function toPrefetchedContext(json: AgentContextJson): PrefetchedContext {
  return {
    history: json.history.map(({ role, content, metadata, runId }) => ({ role, content, metadata, runId })),
    memoryFacts: json.memory,
    hiddenSkills: json.hiddenSkills ?? [],
    unresolvedApprovals: json.unresolvedApprovals,
    mcpServers: json.mcpServers.map(toRunMcpServer),
  };
}

// JSON gives timestamps as ISO strings; RunRow carries Dates like the other queries.
export function toRunRow(json: RunRow): RunRow {
  const date = (v: Date | string | null) => (v == null ? null : new Date(v));
  return {
    ...json,
    createdAt: date(json.createdAt)!,
    startedAt: date(json.startedAt),
    finishedAt: date(json.finishedAt),
    deadlineAt: date(json.deadlineAt)!,
  };
}

/** A queued run `instance` executes now: running, with its attempt recorded as that instance's. */
export async function markRunStarted({ id, attempt, instance }: { id: string; attempt: number; instance: string }): Promise<void> {
  await getPool().query(
    `with started as (update runs set status = 'running', started_at = now(), heartbeat_at = now() where id = $1 and attempt = $2 and status = 'queued' returning id, attempt)
     insert into run_attempts (run_id, attempt, instance, started_at) select id, attempt, $3, now() from started
     on conflict (run_id, attempt) do nothing`,
    [id, attempt, instance],
  );
}

/**
 * Marks these executions alive; answers the runs still open and still theirs (a run missing from
 * the answer was closed or taken over elsewhere), and whether a cancel was requested for each.
 */
export async function heartbeatRuns({ runs }: { runs: { id: string; attempt: number }[] }): Promise<{ id: string; cancelRequested: boolean }[]> {
  if (runs.length === 0) return [];
  const { rows } = await getPool().query<{ id: string; cancelRequested: boolean }>({
    name: "dispatch-heartbeat-runs",
    // A run handed back (releaseRun cleared its heartbeat) keeps none: a beat that read the run
    // before the release and lands after it would hide the run, for a lease, from the instance
    // asked to continue it (on Vercel nothing else would until the every-minute cron).
    text: `update runs r set heartbeat_at = case when r.heartbeat_at is not null then now() end from unnest($1::uuid[], $2::int[]) as x(id, attempt)
     where r.id = x.id and r.attempt = x.attempt and r.status in ('queued', 'running')
     returning r.id, r.cancel_requested_at is not null as "cancelRequested"`,
    values: [runs.map((r) => r.id), runs.map((r) => r.attempt)],
  });
  return rows;
}

export async function requestRunCancel({ id }: { id: string }): Promise<void> {
  await getPool().query(`update runs set cancel_requested_at = coalesce(cancel_requested_at, now()) where id = $1`, [id]);
}

/** The open run with this client runId when its executor stopped reporting before `staleBefore`. */
export async function findStaleRun({ userId, runId, staleBefore }: { userId: string; runId: string; staleBefore: Date }): Promise<{ id: string; runId: string; threadId: string; attempt: number } | null> {
  const { rows } = await getPool().query<{ id: string; runId: string; threadId: string; attempt: number }>(
    // A run handed back moments ago (heartbeat null, its attempt ended handed_off) is about to go on
    // elsewhere: it counts as stale only once it has waited as long as a missed lease.
    `select r.id, r.run_id as "runId", r.thread_id as "threadId", r.attempt from runs r
     where r.user_id = $1 and r.run_id = $2 and r.status in ('queued', 'running') and r.queued_input is null
       and (r.heartbeat_at < $3 or (r.heartbeat_at is null and not exists (
         select 1 from run_attempts a where a.run_id = r.id and a.attempt = r.attempt and a.end_reason = 'handed_off' and a.ended_at >= $3)))`,
    [userId, runId, staleBefore],
  );
  return rows[0] ?? null;
}

/** Runs still open whose executor stopped reporting: its process died, was stopped, or lost the database (a run waiting its turn on a busy thread has no executor yet). */
export async function findAbandonedRuns({ staleBefore }: { staleBefore: Date }): Promise<{ id: string; runId: string; threadId: string }[]> {
  const { rows } = await getPool().query<{ id: string; runId: string; threadId: string }>(
    `select id, run_id as "runId", thread_id as "threadId" from runs
     where status in ('queued', 'running') and (heartbeat_at is null or heartbeat_at < $1) and queued_input is null limit 500`,
    [staleBefore],
  );
  return rows;
}

/** An open run another execution takes over: what it needs to go on, with the attempt it now holds. */
export type ClaimedRun = {
  id: string;
  runId: string;
  threadId: string;
  userId: string;
  protocol: string;
  runner: string;
  deadlineAt: Date;
  createdAt: Date;
  input: unknown;
  generation: Record<string, unknown> | null;
  attempt: number;
  apiKeyHash: string | null;
  traceParent: string | null;
  traceState: string | null;
  /** Someone asked to cancel it: the execution taking it over closes it as cancelled instead. */
  cancelRequested: boolean;
};

/**
 * Takes an open run whose executor stopped reporting before `staleBefore` for the caller: its
 * attempt moves on (so the earlier execution's writes are refused from now on) and its heartbeat
 * is the caller's. Null when it is not stale any more, closed, or another instance took it first.
 */
export async function claimAbandonedRun({ id, staleBefore, instance }: { id: string; staleBefore: Date; instance: string }): Promise<ClaimedRun | null> {
  // The execution it takes over from ended with its lease, unless it said so itself (releaseRun:
  // handed_off); the new one is recorded as `instance`'s.
  const { rows } = await getPool().query<ClaimedRun>(
    `with claimed as (update runs r set attempt = r.attempt + 1, heartbeat_at = now(), status = 'running', started_at = coalesce(r.started_at, now())
     where r.id = $1 and r.status in ('queued', 'running') and (r.heartbeat_at is null or r.heartbeat_at < $2) and r.queued_input is null
     returning r.*),
     ${endOpenAttemptSql("claimed", "'lease_expired'")},
     started as (insert into run_attempts (run_id, attempt, instance, started_at) select id, attempt, $3, now() from claimed
       on conflict (run_id, attempt) do nothing)
     select r.id, r.run_id as "runId", r.thread_id as "threadId", r.user_id as "userId", r.protocol, r.runner,
       r.deadline_at as "deadlineAt", r.created_at as "createdAt", r.input, r.generation, r.attempt,
       r.trace_parent as "traceParent", r.trace_state as "traceState",
       (select k.key_hash from api_keys k where k.id = r.api_key_id) as "apiKeyHash", r.cancel_requested_at is not null as "cancelRequested"
     from claimed r`,
    [id, staleBefore, instance],
  );
  return rows[0] ?? null;
}

/** Where an instance that hands its runs back (it is stopping) says so: payload the run's id. */
export const RUN_RELEASED_CHANNEL = "dispatch_run_released";

/**
 * Hands a run this execution holds back to the other instances (this one is stopping): its
 * heartbeat is cleared, so the next instance to look takes it over, and they are told at once.
 */
export async function releaseRun({ id, attempt }: { id: string; attempt: number }): Promise<boolean> {
  const { rowCount } = await getPool().query(
    `with r as (update runs set heartbeat_at = null where id = $1 and attempt = $2 and status in ('queued', 'running') returning id),
     ${endOpenAttemptSql("r", "'handed_off'")}
     select pg_notify('${RUN_RELEASED_CHANNEL}', id::text) from r`,
    [id, attempt],
  );
  return (rowCount ?? 0) > 0;
}

/** The request the run was started with (runs.input), or null for an unknown run. */
export async function findRunInput({ id }: { id: string }): Promise<{ input: unknown } | null> {
  const { rows } = await getPool().query<{ input: unknown }>(`select input from runs where id = $1`, [id]);
  return rows[0] ?? null;
}

/** One newest-first page of a thread's runs (`limit + 1` rows: the caller cuts the page). */
export async function listThreadRunsPage(opts: { threadId: string; after: { at: Date; id: string } | null; limit: number }): Promise<RunRow[]> {
  const filters = sqlFilters();
  filters.where.push(`thread_id = ${filters.param(opts.threadId)}`);
  return newestFirstPage<RunRow>(getPool(), filters, { select: RUN_COLUMNS, from: "runs", orderAt: "created_at", orderId: "id", after: opts.after, limit: opts.limit });
}
