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

/** The UTC day of the newest message before `before` (or at all), its messages, and whether older ones exist. */
export async function findHistoryDay({ threadId, before }: { threadId: string; before: Date | null }): Promise<{
  dayStart: Date | null;
  messages: MessageRow[];
  hasMore: boolean;
}> {
  const pool = getPool();
  const newest = await pool.query<{ createdAt: Date }>(
    `select created_at as "createdAt" from messages where thread_id = $1 and ($2::timestamptz is null or created_at < $2)
     order by created_at desc limit 1`,
    [threadId, before],
  );
  const last = newest.rows[0]?.createdAt;
  if (!last) return { dayStart: null, messages: [], hasMore: false };
  const dayStart = new Date(Date.UTC(last.getUTCFullYear(), last.getUTCMonth(), last.getUTCDate()));
  const dayEnd = new Date(dayStart.getTime() + 86_400_000);
  const [messages, older] = await Promise.all([
    pool.query<MessageRow>(
      `select ${MESSAGE_COLUMNS} from messages where thread_id = $1 and created_at >= $2 and created_at < $3 order by seq`,
      [threadId, dayStart, dayEnd],
    ),
    pool.query(`select 1 from messages where thread_id = $1 and created_at < $2 limit 1`, [threadId, dayStart]),
  ]);
  return { dayStart, messages: messages.rows, hasMore: (older.rowCount ?? 0) > 0 };
}
