import "server-only";
import { getPool } from "../../db";
import type { MessageModel, ThreadModel } from "../../generated/prisma/models";
import { likePattern } from "../../kernel/sql";

// The Transcript (a thread's messages) as the runner host reads it: pages by seq (of the thread's
// current branch, docs/branches.md), ranked search, and where a run's messages sit in it.

export type TranscriptRow = Pick<MessageModel, "id" | "threadId" | "seq" | "content" | "messageId" | "runId" | "createdAt"> & {
  role: "user" | "assistant" | "tool";
  toolCallId: string | null;
  toolName: string | null;
};

const COLUMNS = `id, thread_id as "threadId", seq, role, content, message_id as "messageId", run_id as "runId",
  coalesce(metadata->>'tool_call_id', metadata->'tool_agent_output'->>'tool_call_id') as "toolCallId",
  coalesce(metadata->>'tool_name', metadata->'tool_agent_output'->>'tool_name') as "toolName", created_at as "createdAt"`;

const UUID = /^[0-9a-f-]{36}$/i;

/** Up to `limit` messages strictly between the two seqs (either may be null), nearest `after` first unless `backward`. */
export async function pageTranscript(q: { threadId: string; beforeSeq: number | null; afterSeq: number | null; backward: boolean; limit: number }): Promise<TranscriptRow[]> {
  const { rows } = await getPool().query<TranscriptRow>(
    `select ${COLUMNS} from messages
     where thread_id = $1::uuid and on_branch and ($2::int is null or seq < $2) and ($3::int is null or seq > $3)
     order by seq ${q.backward ? "desc" : "asc"} limit $4`,
    [UUID.test(q.threadId) ? q.threadId : "00000000-0000-0000-0000-000000000000", q.beforeSeq, q.afterSeq, q.limit],
  );
  return rows;
}

/**
 * Full-text match ('simple' configuration, so any language's words match as written) ranked
 * by ts_rank_cd, plus a substring match so text without word boundaries (CJK) and partial
 * words are still found; substring-only hits rank below every full-text hit.
 */
export async function searchTranscript(q: {
  threadIds: string[];
  query: string;
  roles: string[] | null;
  /** Epoch seconds. */
  since: number | null;
  until: number | null;
  limit: number;
}): Promise<(TranscriptRow & { score: number })[]> {
  const { rows } = await getPool().query<TranscriptRow & { score: number }>(
    `with q as (select plainto_tsquery('simple', $2) as query)
     select ${COLUMNS}, score from (
       select m.*, case when to_tsvector('simple', m.content) @@ q.query then ts_rank_cd(to_tsvector('simple', m.content), q.query)::float8 + 0.001 else 0 end as score
       from messages m, q
       where m.thread_id = any($1::uuid[])
         and ($4::text[] is null or m.role = any($4::text[]))
         and ($5::float8 is null or m.created_at >= to_timestamp($5)) and ($6::float8 is null or m.created_at < to_timestamp($6))
         and (to_tsvector('simple', m.content) @@ q.query or m.content ilike $3)
     ) m order by score desc, seq desc limit $7`,
    [q.threadIds.filter((id) => UUID.test(id)), q.query, likePattern(q.query), q.roles, q.since, q.until, q.limit],
  );
  return rows;
}

/** The seq of each run's last assistant message in the thread. */
export async function findLastAnswerSeqs({ threadId, runIds }: { threadId: string; runIds: string[] }): Promise<Map<string, number>> {
  const { rows } = await getPool().query<{ runId: string; seq: number }>(
    `select run_id as "runId", max(seq) as seq from messages where thread_id = $1 and run_id = any($2::uuid[]) and role = 'assistant' group by run_id`,
    [threadId, runIds],
  );
  return new Map(rows.map((r) => [r.runId, r.seq]));
}

export type TranscriptPosition = { lastSeq: ThreadModel["lastSeq"]; eventSeq: ThreadModel["lastEventSeq"]; userSeq: number | null };

/** The thread's last message and entry-event seqs, and the seq of the run's user message. */
export async function findTranscriptPosition({ threadId, runId }: { threadId: string; runId: string }): Promise<TranscriptPosition> {
  const { rows } = await getPool().query<TranscriptPosition>(
    `select t.last_seq as "lastSeq", t.last_event_seq as "eventSeq",
       (select m.seq from messages m where m.run_id = $2 and m.role = 'user' limit 1) as "userSeq"
     from threads t where t.id = $1`,
    [threadId, runId],
  );
  return rows[0] ?? { lastSeq: 0, eventSeq: 0, userSeq: null };
}

/** Up to `limit` messages before `beforeSeq`, newest first; the model's thinking is not part of a runner's tail or a summary. */
export async function listMessagesBefore({ threadId, beforeSeq, limit }: { threadId: string; beforeSeq: number; limit: number }) {
  const { rows } = await getPool().query<Pick<TranscriptRow, "seq" | "role" | "content">>(
    `select seq, role, content from messages where thread_id = $1 and on_branch and seq < $2 and role <> 'reasoning' order by seq desc limit $3`,
    [threadId, beforeSeq, limit],
  );
  return rows;
}
