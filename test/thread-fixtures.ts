// Rows written straight into a thread for tests that need history the run engine would
// otherwise have produced (tool messages, entry events). The engine itself writes these in
// dispatch_accept_run and server/runs/repository/run-messages.ts.
import type pg from "pg";
import { getPool } from "@/server/db";

export async function createThread({ id, userId, title }: { id: string; userId: string; title: string }): Promise<void> {
  await getPool().query(`insert into threads (id, user_id, title, updated_at) values ($1, $2, $3, now()) on conflict (id) do nothing`, [id, userId, title]);
}

/** Appends a message with the thread's next seq. */
export async function appendMessage(m: {
  threadId: string;
  role: "user" | "assistant" | "tool";
  messageId: string;
  runId: string | null;
  content: string;
  metadata: Record<string, unknown>;
}): Promise<void> {
  await getPool().query(
    `with s as (update threads set last_seq = last_seq + 1, updated_at = now() where id = $1 returning last_seq)
     insert into messages (id, thread_id, seq, role, message_id, run_id, content, metadata, created_at)
     select gen_random_uuid(), $1, s.last_seq, $2, $3, $4, $5, $6, now() from s`,
    [m.threadId, m.role, m.messageId, m.runId, m.content, JSON.stringify(m.metadata)],
  );
}

/** An entry event numbered after the thread's last one. */
export async function recordEntryEvent(
  e: { id: string; eventType: string; source: string; sourceEventType: string | null; data: Record<string, unknown>; rawRef: unknown; threadId: string; userId: string },
  db: pg.Pool | pg.PoolClient = getPool(),
): Promise<void> {
  await db.query(
    `with numbered as (update threads set last_event_seq = last_event_seq + 1 where id = $2 returning last_event_seq)
     insert into agent_events (id, thread_id, user_id, seq, event_type, source, source_event_type, data, raw_ref)
     select $1, $2, $3, n.last_event_seq, $4, $5, $6, $7, $8 from numbered n`,
    [e.id, e.threadId, e.userId, e.eventType, e.source, e.sourceEventType, JSON.stringify(e.data), e.rawRef ? JSON.stringify(e.rawRef) : null],
  );
}
