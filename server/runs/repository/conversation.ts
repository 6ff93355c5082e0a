import "server-only";
import { getPool } from "../../db";
import { RUN_EVENTS_SQL } from "./run-events";
import { toRunRow, type RunRow } from "./runs";

// What POST /api/v1/ag-ui reads to reconcile the conversation a client resends with the thread
// (server/runs/service/conversation-runs.ts): only the messages it was sent, found by id through
// messages(thread_id, message_id), so the cost follows the request, not the thread's length.

/** `onBranch`: on the thread's current branch (a message edited by a fork also has a row off it, under the same id). */
export type KnownMessage = { messageId: string; role: string; content: string; seq: number; onBranch: boolean };

export type ThreadConversationState = {
  /** null when the thread does not exist yet. */
  ownerId: string | null;
  /** The thread's run in progress (queued or running), if any. */
  activeRun: RunRow | null;
  /** The thread's messages whose protocol ids are among those asked for. */
  known: KnownMessage[];
  /** The AG-UI shared state the thread keeps (thread_states), if any. */
  keptState: Record<string, unknown> | null;
  /** The seq of the current branch's newest message, and of its newest user message (0: none). */
  tipSeq: number;
  lastUserSeq: number;
};

/** `withState`: read the state the thread keeps (a request that sends its own does without: null). */
export async function findThreadConversationState({ threadId, messageIds, withState = true }: { threadId: string; messageIds: string[]; withState?: boolean }): Promise<ThreadConversationState> {
  const { rows } = await getPool().query<{
    ownerId: string;
    activeRun: Parameters<typeof toRunRow>[0] | null;
    known: KnownMessage[];
    keptState: Record<string, unknown> | null;
    tipSeq: number | null;
    lastUserSeq: number | null;
  }>({
    name: "dispatch-conversation-state",
    text: `select t.user_id as "ownerId",
        (select dispatch_run_json(r) from runs r
          where (r.id = t.active_run_id or (t.active_run_id is null and r.thread_id = t.id)) and r.status in ('queued', 'running')
          order by r.created_at desc limit 1) as "activeRun",
        coalesce((select json_agg(json_build_object('messageId', m.message_id, 'role', m.role, 'content', m.content, 'seq', m.seq, 'onBranch', m.on_branch) order by m.seq)
          from messages m where m.thread_id = t.id and m.message_id = any($2::text[])), '[]'::json) as known,
        case when $3 then (select s.state from thread_states s where s.thread_id = t.id) end as "keptState",
        (select m.seq from messages m where m.thread_id = t.id and m.on_branch order by m.seq desc limit 1) as "tipSeq",
        (select m.seq from messages m where m.thread_id = t.id and m.on_branch and m.role = 'user' order by m.seq desc limit 1) as "lastUserSeq"
      from threads t where t.id = $1`,
    values: [threadId, messageIds, withState],
  });
  const row = rows[0];
  if (!row) return { ownerId: null, activeRun: null, known: [], keptState: null, tipSeq: 0, lastUserSeq: 0 };
  return {
    ownerId: row.ownerId,
    activeRun: row.activeRun ? toRunRow(row.activeRun) : null,
    known: row.known,
    keptState: row.keptState,
    tipSeq: row.tipSeq ?? 0,
    lastUserSeq: row.lastUserSeq ?? 0,
  };
}

/** The protocol id of the current branch's first user message after `seq`: where a client's conversation leaves the branch. */
export async function findBranchUserAfter({ threadId, seq }: { threadId: string; seq: number }): Promise<string | null> {
  const { rows } = await getPool().query<{ messageId: string }>(
    `select message_id as "messageId" from messages where thread_id = $1 and on_branch and role = 'user' and seq > $2 order by seq limit 1`,
    [threadId, seq],
  );
  return rows[0]?.messageId ?? null;
}

export type ToolCallEventRow = { type: string; payload: Record<string, unknown> };

/** The tool-call events of the thread's newest run, in order: where its open frontend tool calls are. */
export async function findNewestRunToolEvents({ threadId }: { threadId: string }): Promise<ToolCallEventRow[]> {
  const { rows } = await getPool().query<ToolCallEventRow>(
    `select e.type, e.payload::json as payload from ${RUN_EVENTS_SQL} e
     where e.run_id = (select id from runs where thread_id = $1 order by created_at desc limit 1)
       and e.type in ('TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_RESULT')
     order by e.seq`,
    [threadId],
  );
  return rows;
}

export type SnapshotRow = { messageId: string; role: string; content: string; metadata: Record<string, unknown> };

/**
 * The newest `limit` user, reasoning, assistant and tool messages of the thread's current branch, oldest first. With `untilRun`,
 * that run's answers are left out (its user message stays): a client that attaches to the run
 * gets them from the run's events.
 */
export async function findSnapshotMessages({ threadId, untilRun, limit }: { threadId: string; untilRun: string | null; limit: number }): Promise<SnapshotRow[]> {
  const { rows } = await getPool().query<SnapshotRow>(
    `select * from (
       select message_id as "messageId", role, content, metadata, seq from messages
       where thread_id = $1 and on_branch and role in ('user', 'reasoning', 'assistant', 'tool') and ($2::uuid is null or run_id is distinct from $2 or role = 'user')
       order by seq desc limit $3) m
     order by seq`,
    [threadId, untilRun, limit],
  );
  return rows;
}
