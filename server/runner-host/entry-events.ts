import "server-only";
import { createHash } from "node:crypto";
import type pg from "pg";

// EventLog: every entry event the host turns into a run, numbered per conversation. The id
// is derived from the entry itself (thread + message id), so the same entry always has the
// same event id, whichever protocol or retry delivered it.

export type EntryEvent = {
  id: string;
  eventType: string;
  source: string;
  sourceEventType: string | null;
  /** Small, stable facts only; large payloads go by reference (rawRef). */
  data: Record<string, unknown>;
  rawRef: { kind: string; id: string; size?: number } | null;
};

export function entryEventId({ threadId, messageId }: { threadId: string; messageId: string }): string {
  return `evt_${createHash("sha256").update(`${threadId}\u0000${messageId}`).digest("hex").slice(0, 32)}`;
}

/** Records the entry once (a repeat is a no-op) and answers its per-conversation seq. */
export async function recordEntryEvent(e: EntryEvent & { threadId: string; userId: string }, db: pg.PoolClient): Promise<number> {
  const { rows } = await db.query<{ seq: number }>(
    `with existing as (select seq from agent_events where id = $1),
     numbered as (
       update threads set last_event_seq = last_event_seq + 1 where id = $2 and not exists (select 1 from existing) returning last_event_seq
     ),
     inserted as (
       insert into agent_events (id, thread_id, user_id, seq, event_type, source, source_event_type, data, raw_ref)
       select $1, $2, $3, n.last_event_seq, $4, $5, $6, $7, $8 from numbered n returning seq
     )
     select seq from inserted union all select seq from existing`,
    [e.id, e.threadId, e.userId, e.eventType, e.source, e.sourceEventType, JSON.stringify(e.data), e.rawRef ? JSON.stringify(e.rawRef) : null],
  );
  return rows[0]!.seq;
}
