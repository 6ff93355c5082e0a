import "server-only";
import { readPool } from "../../db";
import type { MessageModel, RunModel, ThreadModel, UserModel } from "../../generated/prisma/models";
import { RUN_EVENTS_SQL } from "../../runs/repository/run-events";
import type { RunRow } from "../../runs/repository/runs";
import { likePattern, newestFirstPage, sqlFilters } from "../../kernel/sql";
import type { RunStatus } from "../../kernel/runs";

// Read-only queries for the admin console's run pages. Lists are keyset-paginated on
// (created_at, id) so a page costs the same at any depth, and nothing reads a whole table.

export type AdminRunQuery = {
  statuses?: RunStatus[];
  userEmail?: string;
  threadId?: string;
  protocol?: string;
  createdFrom?: Date;
  createdTo?: Date;
  minDurationMs?: number;
  hasError?: boolean;
  awaitingApproval?: boolean;
  /** Runs executed more than once (`moved`), or whose executor stopped reporting at least once (`lease_expired`). */
  attempts?: "moved" | "lease_expired";
  after: { at: Date; id: string } | null;
  limit: number;
};

export type AdminRunListRow = Omit<RunRow, "usage" | "deadlineAt"> & {
  userEmail: UserModel["email"];
  durationMs: number | null;
  /** The start of the run's user message, by which a person knows the run. */
  prompt: string | null;
  /** How many executions the run had (runs.attempt): more than one when it moved between instances. */
  attempts: RunModel["attempt"];
};

export type AdminRunRow = AdminRunListRow &
  Pick<RunRow, "usage" | "deadlineAt"> &
  Pick<RunModel, "heartbeatAt" | "cancelRequestedAt"> & { threadTitle: ThreadModel["title"]; traceId: string | null };

export type RunEventRow = { seq: number; type: string; payload: string; createdAt: Date };

export type RunEventTimings = {
  eventCount: number;
  firstEventAt: Date | null;
  firstTextAt: Date | null;
  firstToolCallAt: Date | null;
  lastEventAt: Date | null;
};

export type ToolCallEventsRow = {
  toolCallId: string;
  firstSeq: number;
  toolCallName: string | null;
  argsText: string | null;
  startedAt: Date | null;
  endedAt: Date | null;
  resultAt: Date | null;
  resultEvent: string | null;
};

export type RunMessageRow = Pick<MessageModel, "id" | "seq" | "role" | "messageId" | "content" | "createdAt"> & { metadata: Record<string, unknown> };

// Durations are wall-clock milliseconds between two timestamp(3) columns.
const DURATION_MS = `(extract(epoch from (r.finished_at - r.started_at)) * 1000)::float8`;

const LIST_COLUMNS = `r.id, r.run_id as "runId", r.thread_id as "threadId", r.user_id as "userId", u.email as "userEmail",
  r.status, r.protocol, r.runner, r.model, r.error_code as "errorCode", r.error_message as "errorMessage",
  r.created_at as "createdAt", r.started_at as "startedAt", r.finished_at as "finishedAt", ${DURATION_MS} as "durationMs", r.attempt as "attempts",
  (select left(m.content, 200) from messages m where m.run_id = r.id and m.role = 'user' order by m.seq limit 1) as prompt`;

function roundDuration<T extends { durationMs: number | null }>(row: T): T {
  return { ...row, durationMs: row.durationMs === null ? null : Math.round(row.durationMs) };
}

export async function listAdminRunsPage(q: AdminRunQuery): Promise<AdminRunListRow[]> {
  const filters = sqlFilters();
  const { where, param } = filters;
  if (q.statuses?.length) where.push(`r.status = any(${param(q.statuses)}::"RunStatus"[])`);
  if (q.userEmail) where.push(`u.email ilike ${param(likePattern(q.userEmail))}`);
  if (q.threadId) where.push(`r.thread_id = ${param(q.threadId)}::uuid`);
  if (q.protocol) where.push(`r.protocol = ${param(q.protocol)}`);
  if (q.createdFrom) where.push(`r.created_at >= ${param(q.createdFrom)}::timestamptz`);
  if (q.createdTo) where.push(`r.created_at < ${param(q.createdTo)}::timestamptz`);
  // A run still going counts its time so far, so stuck runs show up under a minimum duration.
  if (q.minDurationMs !== undefined) {
    const min = `${param(q.minDurationMs)}::float8 * interval '1 millisecond'`;
    where.push(`r.started_at is not null and coalesce(r.finished_at, localtimestamp) - r.started_at >= ${min}`);
  }
  if (q.hasError !== undefined) where.push(q.hasError ? `r.error_code is not null` : `r.error_code is null`);
  // Ended waiting for a person: an approval request of the run is still pending (server/approvals).
  if (q.awaitingApproval) where.push(`exists (select 1 from approvals a where a.run_id = r.id and a.status = 'pending' and a.expires_at > now())`);
  if (q.attempts === "moved") where.push(`r.attempt > 1`);
  if (q.attempts === "lease_expired") where.push(`exists (select 1 from run_attempts ra where ra.run_id = r.id and ra.end_reason = 'lease_expired')`);
  const rows = await newestFirstPage<AdminRunListRow>(readPool(), filters, {
    select: LIST_COLUMNS,
    from: "runs r join users u on u.id = r.user_id",
    orderAt: "r.created_at",
    orderId: "r.id",
    after: q.after,
    limit: q.limit,
  });
  return rows.map(roundDuration);
}

export async function findAdminRun({ id }: { id: string }): Promise<AdminRunRow | null> {
  const { rows } = await readPool().query<AdminRunRow>(
    `select ${LIST_COLUMNS}, t.title as "threadTitle", r.usage, r.deadline_at as "deadlineAt", r.heartbeat_at as "heartbeatAt",
       r.cancel_requested_at as "cancelRequestedAt", split_part(r.trace_parent, '-', 2) as "traceId"
     from runs r join users u on u.id = r.user_id join threads t on t.id = r.thread_id where r.id = $1`,
    [id],
  );
  return rows[0] ? roundDuration(rows[0]) : null;
}

/**
 * Where a run's events are read from: the event log's hot rows, or (`archived`, a log that left
 * them: server/run-archive) the archive's events, passed in as JSON so the same queries run on them.
 */
function eventsFrom(archived: ArchivedEvents, param: number): string {
  if (!archived) return RUN_EVENTS_SQL;
  return `(select $1::uuid as run_id, e.seq, e.type, e.event as payload, e."createdAt"::timestamptz::timestamp(3) as created_at
    from json_to_recordset($${param}::json) as e(seq int, type text, event text, "createdAt" text))`;
}

/** A run's archived events (null: its log is in the hot rows). */
export type ArchivedEvents = { seq: number; type: string; event: string; createdAt: string }[] | null;

const archivedParam = (archived: ArchivedEvents) => (archived ? [JSON.stringify(archived)] : []);

export async function listRunEventsPage({ runId, afterSeq, limit, archived = null }: { runId: string; afterSeq: number; limit: number; archived?: ArchivedEvents }): Promise<RunEventRow[]> {
  const { rows } = await readPool().query<RunEventRow>(
    `select seq, type, payload, created_at as "createdAt" from ${eventsFrom(archived, 4)} e
     where run_id = $1 and seq > $2 order by seq limit $3`,
    [runId, afterSeq, limit, ...archivedParam(archived)],
  );
  return rows;
}

export async function findRunEventTimings({ runId, archived = null }: { runId: string; archived?: ArchivedEvents }): Promise<RunEventTimings> {
  const { rows } = await readPool().query<RunEventTimings>(
    `select count(*)::int as "eventCount", min(created_at) as "firstEventAt",
       min(created_at) filter (where type = 'TEXT_MESSAGE_CONTENT') as "firstTextAt",
       min(created_at) filter (where type = 'TOOL_CALL_START') as "firstToolCallAt",
       max(created_at) as "lastEventAt"
     from ${eventsFrom(archived, 2)} e where run_id = $1`,
    [runId, ...archivedParam(archived)],
  );
  return rows[0]!;
}

/** One row per tool call of the run, its arguments joined from the TOOL_CALL_ARGS deltas. */
export async function listRunToolCallEvents({ runId, limit, archived = null }: { runId: string; limit: number; archived?: ArchivedEvents }): Promise<ToolCallEventsRow[]> {
  const { rows } = await readPool().query<ToolCallEventsRow>(
    `select payload->>'toolCallId' as "toolCallId", min(seq) as "firstSeq",
       max(payload->>'toolCallName') filter (where type = 'TOOL_CALL_START') as "toolCallName",
       string_agg(payload->>'delta', '' order by seq) filter (where type = 'TOOL_CALL_ARGS') as "argsText",
       min(created_at) filter (where type = 'TOOL_CALL_START') as "startedAt",
       min(created_at) filter (where type = 'TOOL_CALL_END') as "endedAt",
       min(created_at) filter (where type = 'TOOL_CALL_RESULT') as "resultAt",
       (array_agg(payload::text order by seq) filter (where type = 'TOOL_CALL_RESULT'))[1] as "resultEvent"
     from (select seq, type, payload::json as payload, created_at from ${eventsFrom(archived, 3)} e
           where run_id = $1 and type in ('TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'TOOL_CALL_RESULT')) e
     where payload->>'toolCallId' is not null
     group by payload->>'toolCallId' order by "firstSeq" limit $2`,
    [runId, limit, ...archivedParam(archived)],
  );
  return rows;
}

/** The run's messages (its user input, answers and tool results) in thread order. */
export async function listRunMessages({ threadId, runId, limit }: { threadId: string; runId: string; limit: number }): Promise<RunMessageRow[]> {
  const { rows } = await readPool().query<RunMessageRow>(
    `select id, seq, role, message_id as "messageId", content, metadata, created_at as "createdAt"
     from messages where thread_id = $1 and run_id = $2 order by seq limit $3`,
    [threadId, runId, limit],
  );
  return rows;
}
