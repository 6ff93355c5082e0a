import "server-only";
import { readPool } from "../../db";
import { ApiKeyRefusedError } from "../../kernel/errors";

/** A message the database leaves to the server to render (see HistoryChunk), in the shape the page needs. */
export type HistoryRow = {
  seq: number;
  role: "user" | "reasoning" | "assistant" | "tool";
  messageId: string;
  content: string;
  /** ISO-8601 in UTC with milliseconds, as Date.toISOString gives it. */
  timestamp: string;
  /** `metadata.user_message_attachments` of a user message, else null. */
  attachments: unknown;
  /** `metadata.tool_agent_output` of a tool message, else null. */
  toolOutput: unknown;
  /** `metadata.approval` of a tool message that waits for approval (server/approvals), else null. */
  approval?: unknown;
  /** `metadata.duration_ms` of a reasoning message (how long the model thought), else null. */
  durationMs?: number | null;
};

/**
 * Up to 64 consecutive messages of a page: their texts as the page shows them, comma-separated,
 * with HISTORY_PLACEHOLDER standing for each message in `rows` (tool results and user messages
 * with attachments: the server renders those), in the same order.
 */
export type HistoryChunk = { json: string; rows: HistoryRow[] };

/** Where a chunk's text has a message the server renders; JSON text never holds it raw. */
export const HISTORY_PLACEHOLDER = "\u0001";

// One header row (thread set, chunk columns null), then one row per chunk (thread null).
type HistoryDayRow = {
  keyOk: boolean | null;
  thread: string | null;
  branched: boolean | null;
  day: string | null;
  hasMore: boolean | null;
  state: Record<string, unknown> | null;
  seq: number | null;
  json: string | null;
  rows: HistoryRow[] | null;
};

/**
 * Parameters: $1 user, $2 thread id or null (the user's latest), $3 `before` as a date or null,
 * $4 the hash of an API key the user was taken from unchecked (see withCaller), or null, $5 whether
 * the model's reasoning messages are wanted (spec/agent-run-input.md's page has none). Such a
 * key must be unrevoked and the user's, or nothing is read: the header row says so (keyOk).
 * created_at holds UTC wall time (no zone), so days are date_trunc'd as they are.
 *
 * A named statement: each connection parses and plans it once (parsing and planning it on every
 * call took as long as running it), so it is written for one generic plan that serves every
 * call. A given thread and the latest thread are separate branches, each on its own index, and
 * the one that does not apply is skipped at the start; `before` bounds the index scan as
 * coalesce($3, 'infinity') (an "is null or" test would not, and an older day would then scan
 * the thread back from its newest message).
 *
 * The messages come as chunks of the texts the database rendered when they were written
 * (messages.history_json, migration 20261121200000_message_history_json): ~15 rows for a
 * 900-message day instead of 900, which the server neither parses field by field nor serializes.
 */
const HISTORY_DAY_SQL = `with k as (select $4::text is null or exists (select 1 from api_keys ak join users au on au.id = ak.user_id where ak.key_hash = $4 and ak.user_id = $1 and ak.revoked_at is null and au.disabled_at is null) as ok),
   t as (select id, branched from threads where $2::uuid is not null and (select ok from k) and id = $2::uuid and user_id = $1
         union all
         (select id, branched from threads where $2::uuid is null and (select ok from k) and user_id = $1 order by updated_at desc limit 1)),
   -- The page header, computed once rather than per message row; always one row.
   page as materialized (
     select k.ok as "keyOk", t.id as thread, t.branched, n.start, to_char(n.start, 'YYYY-MM-DD') as day,
       -- Older-exists as an ordered index probe; a bare exists() may be planned as a scan of messages.
       (select o.created_at from messages o where o.thread_id = t.id and o.on_branch and o.created_at < n.start order by o.created_at desc limit 1) is not null as "hasMore",
       (select s.state from thread_states s where s.thread_id = t.id) as state
     from k left join t on true left join lateral (select date_trunc('day', created_at) as start from messages
                               where thread_id = t.id and on_branch and created_at < coalesce($3::date, 'infinity'::date) order by created_at desc limit 1) n on true
   )
   select "keyOk", thread, branched, day, "hasMore", state, null::int as seq, null::text as json, null::json as rows
   from page
   union all
   select null, null, null, null, null, null, min(seq), string_agg(coalesce(rendered, chr(1)), ',' order by seq), json_agg(fields order by seq) filter (where rendered is null)
   -- Only what the chunks need goes through their sort; the fields of a message are built only
   -- for the few the server renders.
   from (select m.seq, m.history_json as rendered, case when m.history_json is null then json_build_object('seq', m.seq, 'role', m.role,
           'messageId', m.message_id, 'content', m.content, 'timestamp', m.created_at::text,
           'attachments', case m.role when 'user' then m.metadata -> 'user_message_attachments' end,
           'toolOutput', case m.role when 'tool' then m.metadata -> 'tool_agent_output' end,
           'approval', case m.role when 'tool' then m.metadata -> 'approval' end,
           'durationMs', case m.role when 'reasoning' then (m.metadata ->> 'duration_ms')::int end) end as fields
         -- Lateral, so the day is always read as an index range of the page's thread, whatever
         -- the generic plan estimates (joined, it could be planned as a hash join over the table).
         from page cross join lateral (select * from messages where thread_id = page.thread and created_at >= page.start
           and created_at < page.start + interval '1 day' and on_branch and (role in ('user', 'assistant', 'tool') or ($5::boolean and role = 'reasoning')) offset 0) m) day
   group by seq / 64`;

/**
 * One round trip for a history page: the user's thread (the given one, or their latest), the UTC
 * day of its current branch's (docs/branches.md) newest message before `before` (or at all), that day's user, assistant and tool
 * messages (and reasoning, when asked) in seq order (as chunks), and whether older messages exist. Each part is an index range
 * on (thread_id, created_at), so the cost follows the page, not the thread. `thread` is null when
 * the user has no such thread; a refused `keyHash` throws ApiKeyRefusedError.
 */
export async function findHistoryDay({
  userId,
  threadId,
  before,
  keyHash = null,
  reasoning = false,
}: {
  userId: string;
  threadId: string | null;
  before: Date | null;
  keyHash?: string | null;
  reasoning?: boolean;
}): Promise<{
  thread: string | null;
  day: string | null;
  chunks: HistoryChunk[];
  hasMore: boolean;
  /** The thread's AG-UI shared state (thread_states), null when it keeps none. */
  state: Record<string, unknown> | null;
  /** Whether the thread ever forked (docs/branches.md): only such a thread has messages with siblings. */
  branched: boolean;
}> {
  // `before` goes as a date, not a timestamp: UTC midnight whatever this process's zone is. A read
  // replica may answer once it has this user's own writes (docs/scaling.md "Read replicas").
  const { rows } = await readPool({ after: { user: userId } }).query<HistoryDayRow>({
    name: "dispatch-history-day",
    text: HISTORY_DAY_SQL,
    values: [userId, threadId, before ? before.toISOString().slice(0, 10) : null, keyHash, reasoning],
  });
  let header: HistoryDayRow | null = null;
  const chunks: (HistoryChunk & { seq: number })[] = [];
  for (const row of rows) {
    if (row.seq === null) {
      header = row;
    } else {
      const rendered = row.rows ?? [];
      for (const r of rendered) r.timestamp = isoTimestamp(r.timestamp);
      chunks.push({ seq: row.seq, json: row.json!, rows: rendered });
    }
  }
  if (keyHash !== null && header?.keyOk !== true) throw new ApiKeyRefusedError(keyHash);
  if (!header?.thread) return { thread: null, day: null, chunks: [], hasMore: false, state: null, branched: false };
  // Chunks are runs of seq (seq / 64), so ordering them by their first seq orders the messages.
  chunks.sort((a, b) => a.seq - b.seq);
  return { thread: header.thread, day: header.day, chunks, hasMore: header.hasMore!, state: header.state, branched: header.branched === true };
}

// created_at::text in PostgreSQL's ISO DateStyle (its default, which node-pg's own date parsing
// also needs), e.g. "2026-03-15 10:00:00.12". created_at holds UTC wall time.
const PG_TIMESTAMP = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?$/;

/** The ISO-8601 form Date.toISOString gives for the same instant, without a Date per row. */
function isoTimestamp(text: string): string {
  const match = PG_TIMESTAMP.exec(text);
  if (!match) throw new Error(`Unexpected timestamp text from PostgreSQL: ${text} (is DateStyle ISO?)`);
  // Milliseconds, truncated as Date does: "12" is 120 ms, "123456" is 123 ms.
  const ms = ((match[3] ?? "") + "000").slice(0, 3);
  return `${match[1]}T${match[2]}.${ms}Z`;
}
