import "server-only";
import { getPool } from "../../db";

// The SQL of platform actions with the web chat as the platform: a runner's follow-up message
// appended to its run's thread, and an edit of one of its own earlier messages there.

export type PlatformMessage = { id: string; messageId: string; seq: number; content: string };

/**
 * Appends an assistant message to the run's thread (the thread's next seq), attributed to the run
 * as the messages the run streams are, and marked as sent through a platform action.
 */
export async function insertPlatformMessage(opts: { runId: string; threadId: string; messageId: string; content: string; metadata: Record<string, unknown> }): Promise<PlatformMessage> {
  const { rows } = await getPool().query<PlatformMessage>(
    `with r as (select run_id from runs where id = $2 and thread_id = $1),
       s as (update threads set last_seq = last_seq + 1, updated_at = now() from r where threads.id = $1 returning threads.last_seq)
     insert into messages (id, thread_id, seq, role, message_id, run_id, content, metadata, created_at)
     select gen_random_uuid(), $1, s.last_seq, 'assistant', $3, $2, $4,
       jsonb_build_object('run_id', r.run_id, 'message_id', $3::text, 'stage', 'answer') || $5::jsonb, now()
     from s, r
     returning id, message_id as "messageId", seq, content`,
    [opts.threadId, opts.runId, opts.messageId, opts.content, JSON.stringify(opts.metadata)],
  );
  const row = rows[0];
  if (!row) throw new Error(`run ${opts.runId} is not a run of thread ${opts.threadId}`);
  return row;
}

export type EditOutcome = { outcome: "edited"; message: PlatformMessage } | { outcome: "not_found" } | { outcome: "not_own" };

/**
 * Replaces the text of the latest message of the thread with this protocol message id, provided
 * it is an assistant message written by a run of `runnerId`; anything else is left untouched. A
 * conversation summary that covers the message no longer says what the thread says: it is dropped,
 * and the next summary_tail run makes a new one.
 */
export async function editRunnerMessage(opts: { threadId: string; messageId: string; runnerId: string; content: string; metadata: Record<string, unknown> }): Promise<EditOutcome> {
  const { rows } = await getPool().query<{ found: boolean; own: boolean; id: string | null; seq: number | null }>(
    `with target as (select m.id, (m.role = 'assistant' and r.runner is not distinct from $3) as own
         from messages m left join runs r on r.id = m.run_id
         where m.thread_id = $1 and m.message_id = $2 order by m.seq desc limit 1),
       edited as (update messages set content = $4, metadata = messages.metadata || $5::jsonb
         from target where messages.id = target.id and target.own returning messages.id, messages.seq),
       stale as (delete from conversation_summaries s using edited where s.thread_id = $1 and s.covers_seq >= edited.seq)
     select exists (select 1 from target) as found, coalesce((select own from target), false) as own,
       (select id from edited) as id, (select seq from edited) as seq`,
    [opts.threadId, opts.messageId, opts.runnerId, opts.content, JSON.stringify(opts.metadata)],
  );
  const r = rows[0]!;
  if (!r.found) return { outcome: "not_found" };
  if (!r.own || r.id === null || r.seq === null) return { outcome: "not_own" };
  return { outcome: "edited", message: { id: r.id, messageId: opts.messageId, seq: r.seq, content: opts.content } };
}

/** A message by its row id, for an instance that delivers another instance's platform action to its followers. */
export async function findPlatformMessage({ id }: { id: string }): Promise<PlatformMessage | null> {
  const { rows } = await getPool().query<PlatformMessage>(`select id, message_id as "messageId", seq, content from messages where id = $1`, [id]);
  return rows[0] ?? null;
}
