import "server-only";
import type pg from "pg";
import { getPool } from "../db";

export type MessageRow = {
  id: string;
  threadId: string;
  seq: number;
  role: string;
  messageId: string;
  runId: string | null;
  content: string;
  metadata: Record<string, unknown>;
  createdAt: Date;
};

export type NewMessage = {
  threadId: string;
  role: "user" | "assistant" | "tool";
  messageId: string;
  runId: string | null;
  content: string;
  metadata: Record<string, unknown>;
};

const MESSAGE_COLUMNS = `id, thread_id as "threadId", seq, role, message_id as "messageId", run_id as "runId", content, metadata, created_at as "createdAt"`;

/** Appends a message with the thread's next seq; the thread row lock orders concurrent writers. */
export async function appendMessage(m: NewMessage, db: pg.Pool | pg.PoolClient = getPool()): Promise<MessageRow> {
  const { rows } = await db.query<MessageRow>(
    `with s as (update threads set last_seq = last_seq + 1, updated_at = now() where id = $1 returning last_seq)
     insert into messages (id, thread_id, seq, role, message_id, run_id, content, metadata, created_at)
     select gen_random_uuid(), $1, s.last_seq, $2, $3, $4, $5, $6, now() from s
     returning ${MESSAGE_COLUMNS}`,
    [m.threadId, m.role, m.messageId, m.runId, m.content, JSON.stringify(m.metadata)],
  );
  return rows[0]!;
}

type HistoryDayRow = Omit<MessageRow, "id"> & { id: string | null; thread: string; dayStart: Date | null; hasMore: boolean };

/**
 * One round trip for a history page: the user's thread (the given one, or their latest), the UTC day
 * of its newest message before `before` (or at all), that day's messages and whether older ones
 * exist. Each part is an index range on (thread_id, created_at), so the cost follows the page,
 * not the thread. `thread` is null when the user has no such thread.
 */
export async function findHistoryDay({ userId, threadId, before }: { userId: string; threadId: string | null; before: Date | null }): Promise<{
  thread: string | null;
  dayStart: Date | null;
  messages: MessageRow[];
  hasMore: boolean;
}> {
  const { rows } = await getPool().query<HistoryDayRow>(
    `with t as (select id from threads where user_id = $1 and ($2::uuid is null or id = $2::uuid) order by updated_at desc limit 1),
     day as (
       select t.id as thread, date_trunc('day', n.created_at at time zone 'UTC') at time zone 'UTC' as start
       from t, lateral (select created_at from messages where thread_id = t.id and ($3::timestamptz is null or created_at < $3)
                        order by created_at desc limit 1) n
     ),
     -- Materialized so the older-exists probe runs once, not once per message row.
     d as materialized (
       select start, exists (select 1 from messages o, day where o.thread_id = day.thread and o.created_at < day.start) as has_more from day
     )
     select t.id as thread, d.start as "dayStart", coalesce(d.has_more, false) as "hasMore",
       m.id, m.thread_id as "threadId", m.seq, m.role, m.message_id as "messageId", m.run_id as "runId", m.content, m.metadata,
       m.created_at as "createdAt"
     from t left join d on true
       left join messages m on m.thread_id = t.id and m.created_at >= d.start and m.created_at < d.start + interval '24 hours'
     order by m.seq`,
    [userId, threadId, before],
  );
  const first = rows[0];
  if (!first) return { thread: null, dayStart: null, messages: [], hasMore: false };
  const messages = rows.filter((r): r is HistoryDayRow & { id: string } => r.id !== null).map(({ thread: _t, dayStart: _d, hasMore: _h, ...m }) => m);
  return { thread: first.thread, dayStart: first.dayStart, messages, hasMore: first.hasMore };
}
