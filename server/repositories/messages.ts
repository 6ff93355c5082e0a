import "server-only";
import { getPool } from "../db";
import { ApiKeyRefusedError } from "../errors";

/** A history page row, in the shape the page needs: no uuids or metadata beyond the two keys it reads. */
export type HistoryRow = {
  seq: number;
  role: "user" | "assistant" | "tool";
  messageId: string;
  content: string;
  /** ISO-8601 in UTC with milliseconds, as Date.toISOString gives it. */
  timestamp: string;
  /** `metadata.user_message_attachments` of a user message, else null. */
  attachments: unknown;
  /** `metadata.tool_agent_output` of a tool message, else null. */
  toolOutput: unknown;
};

// One header row (thread set, message columns null), then one row per message (thread null).
type HistoryDayRow = { [K in keyof HistoryRow]: HistoryRow[K] | null } & { thread: string | null; day: string | null; hasMore: boolean | null; keyOk: boolean | null };

/**
 * Parameters: $1 user, $2 thread id or null (the user's latest), $3 `before` as a date or null,
 * $4 the hash of an API key the user was taken from unchecked (see withCaller), or null. Such a
 * key must be unrevoked and the user's, or nothing is read: the header row says so (keyOk).
 * created_at holds UTC wall time (no zone), so days are date_trunc'd as they are. Sent unnamed,
 * so PostgreSQL plans each call with its values and the "is null or" branches fold away: as a
 * named statement it would go generic after five calls, and `before` would stop bounding the
 * index scan (an older day then scans the thread back from its newest message).
 */
const HISTORY_DAY_SQL = `with k as (select $4::text is null or exists (select 1 from api_keys where key_hash = $4 and user_id = $1 and revoked_at is null) as ok),
   t as (select id from threads where (select ok from k) and user_id = $1 and ($2::uuid is null or id = $2::uuid) order by updated_at desc limit 1),
   -- The page header, computed once rather than per message row; always one row.
   page as materialized (
     select k.ok as "keyOk", t.id as thread, n.start, to_char(n.start, 'YYYY-MM-DD') as day,
       -- Older-exists as an ordered index probe; a bare exists() may be planned as a scan of messages.
       (select o.created_at from messages o where o.thread_id = t.id and o.created_at < n.start order by o.created_at desc limit 1) is not null as "hasMore"
     from k left join t on true left join lateral (select date_trunc('day', created_at) as start from messages
                               where thread_id = t.id and ($3::date is null or created_at < $3::date) order by created_at desc limit 1) n on true
   )
   select "keyOk", thread, day, "hasMore", null::int as seq, null as role, null as "messageId", null as content, null as timestamp,
     null::jsonb as attachments, null::jsonb as "toolOutput"
   from page
   union all
   -- Message rows leave the header out: repeated on each, it was a third of the query's time.
   select null, null, null, null, m.seq, m.role, m.message_id, m.content, m.created_at::text,
     case m.role when 'user' then m.metadata -> 'user_message_attachments' end,
     case m.role when 'tool' then m.metadata -> 'tool_agent_output' end
   from page join messages m on m.thread_id = page.thread and m.created_at >= page.start and m.created_at < page.start + interval '1 day'
     and m.role in ('user', 'assistant', 'tool')`;

/**
 * One round trip for a history page: the user's thread (the given one, or their latest), the UTC
 * day of its newest message before `before` (or at all), that day's user, assistant and tool
 * messages in seq order, and whether older messages exist. Each part is an index range on
 * (thread_id, created_at), so the cost follows the page, not the thread. `thread` is null when
 * the user has no such thread; a refused `keyHash` throws ApiKeyRefusedError.
 */
export async function findHistoryDay({ userId, threadId, before, keyHash = null }: { userId: string; threadId: string | null; before: Date | null; keyHash?: string | null }): Promise<{
  thread: string | null;
  day: string | null;
  messages: HistoryRow[];
  hasMore: boolean;
}> {
  // `before` goes as a date, not a timestamp: UTC midnight whatever this process's zone is.
  const { rows } = await getPool().query<HistoryDayRow>(HISTORY_DAY_SQL, [userId, threadId, before ? before.toISOString().slice(0, 10) : null, keyHash]);
  let header: HistoryDayRow | null = null;
  const messages: HistoryRow[] = [];
  for (const row of rows) {
    if (row.seq === null) {
      header = row;
    } else {
      row.timestamp = isoTimestamp(row.timestamp!);
      messages.push(row as HistoryRow);
    }
  }
  if (keyHash !== null && header?.keyOk !== true) throw new ApiKeyRefusedError(keyHash);
  if (!header?.thread) return { thread: null, day: null, messages: [], hasMore: false };
  // Sorted here rather than in SQL, where the sort would copy every wide row: rows arrive nearly
  // in seq order (the table is append-only), which V8's sort handles in about linear time.
  messages.sort((a, b) => a.seq - b.seq);
  return { thread: header.thread, day: header.day, messages, hasMore: header.hasMore! };
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
