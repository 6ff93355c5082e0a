import "server-only";
import { getPool } from "../../../db";
import type { ArtifactRef } from "../../../protocols/runner/context";
import type { TranscriptItem } from "../../../protocols/runner/host-api";
import { artifactRef, type ArtifactRow } from "../../artifact-store";
import { decodeTranscriptCursor, encodeTranscriptCursor } from "../../transcript-cursor";
import type { JsonHandler } from "../call";
import { HostApiFailure } from "../failure";

// history/*: the Transcript (messages) projected to role, content and ids. Metadata, tool
// payloads and signed URLs stay on the host; attachments come as artifact refs on request.
// Which conversations a run may read was decided when it was accepted (resource check).

type MessageRow = {
  id: string;
  threadId: string;
  seq: number;
  role: TranscriptItem["role"];
  content: string;
  messageId: string;
  runId: string | null;
  toolCallId: string | null;
  toolName: string | null;
  createdAt: Date;
};

const COLUMNS = `id, thread_id as "threadId", seq, role, content, message_id as "messageId", run_id as "runId",
  coalesce(metadata->>'tool_call_id', metadata->'tool_agent_output'->>'tool_call_id') as "toolCallId",
  coalesce(metadata->>'tool_name', metadata->'tool_agent_output'->>'tool_name') as "toolName", created_at as "createdAt"`;

function item(m: MessageRow): TranscriptItem {
  return {
    item_id: m.id,
    cursor: encodeTranscriptCursor(m.seq),
    conversation_id: m.threadId,
    seq: m.seq,
    role: m.role,
    content: m.content,
    message_id: m.messageId,
    run_id: m.runId,
    tool_call_id: m.toolCallId,
    tool_name: m.toolName,
    created_at: m.createdAt.getTime() / 1000,
  };
}

function cursorSeq(name: string, cursor: string | undefined): number | null {
  if (cursor === undefined) return null;
  const seq = decodeTranscriptCursor(cursor);
  if (seq === null) throw new HostApiFailure("invalid_argument", `${name} is not a cursor this host issued`);
  return seq;
}

/**
 * Artifact refs per message: a user message carries its run's input attachments; the
 * artifacts a runner created during a run go with that run's last assistant message.
 */
async function attachArtifacts(threadId: string, rows: MessageRow[], items: TranscriptItem[]): Promise<void> {
  const runIds = [...new Set(rows.map((r) => r.runId).filter((id): id is string => id !== null))];
  const [artifacts, lastAnswers] = await Promise.all([
    getPool().query<ArtifactRow & { attachmentId: string | null }>(
      `select id, user_id as "userId", thread_id as "threadId", run_id as "runId", runner_id as "runnerId", attachment_id as "attachmentId", name,
         mime_type as "mimeType", size, sha256, bucket, path, expires_at as "expiresAt", created_at as "createdAt"
       from artifacts where thread_id = $1 and run_id = any($2::uuid[]) and (expires_at is null or expires_at > now()) order by created_at`,
      [threadId, runIds],
    ),
    getPool().query<{ runId: string; seq: number }>(
      `select run_id as "runId", max(seq) as seq from messages where thread_id = $1 and run_id = any($2::uuid[]) and role = 'assistant' group by run_id`,
      [threadId, runIds],
    ),
  ]);
  const lastAnswer = new Map(lastAnswers.rows.map((r) => [r.runId, r.seq]));
  rows.forEach((m, i) => {
    const refs: ArtifactRef[] = [];
    if (m.runId && m.role === "user") refs.push(...artifacts.rows.filter((a) => a.runId === m.runId && a.attachmentId !== null).map(artifactRef));
    if (m.runId && m.role === "assistant" && lastAnswer.get(m.runId) === m.seq) {
      refs.push(...artifacts.rows.filter((a) => a.runId === m.runId && a.attachmentId === null).map(artifactRef));
    }
    items[i]!.artifacts = refs;
  });
}

export const pageHistory: JsonHandler<"history/page"> = async ({ params, session }) => {
  const threadId = params.conversation_id ?? session.threadId;
  const before = cursorSeq("before_cursor", params.before_cursor);
  const after = cursorSeq("after_cursor", params.after_cursor);
  const backward = params.direction === "backward";
  const { rows } = await getPool().query<MessageRow>(
    `select ${COLUMNS} from messages
     where thread_id = $1::uuid and ($2::int is null or seq < $2) and ($3::int is null or seq > $3)
     order by seq ${backward ? "desc" : "asc"} limit $4`,
    [/^[0-9a-f-]{36}$/i.test(threadId) ? threadId : "00000000-0000-0000-0000-000000000000", before, after, params.limit + 1],
  );
  const hasMore = rows.length > params.limit;
  const page = rows.slice(0, params.limit);
  if (backward) page.reverse();
  const items = page.map(item);
  if (params.include_artifacts && page.length > 0) await attachArtifacts(threadId, page, items);
  return {
    conversation_id: threadId,
    items,
    has_more: hasMore,
    before_cursor: items[0]?.cursor ?? null,
    after_cursor: items.at(-1)?.cursor ?? null,
  };
};

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Full-text match ('simple' configuration, so any language's words match as written) ranked
 * by ts_rank_cd, plus a substring match so text without word boundaries (CJK) and partial
 * words are still found; substring-only hits rank below every full-text hit.
 */
export const searchHistory: JsonHandler<"history/search"> = async ({ params, session }) => {
  const f = params.filters ?? {};
  const conversations = f.conversation_id ? [f.conversation_id] : session.authorization.history.conversation_ids;
  const { rows } = await getPool().query<MessageRow & { score: number }>(
    `with q as (select plainto_tsquery('simple', $2) as query)
     select ${COLUMNS}, score from (
       select m.*, case when to_tsvector('simple', m.content) @@ q.query then ts_rank_cd(to_tsvector('simple', m.content), q.query)::float8 + 0.001 else 0 end as score
       from messages m, q
       where m.thread_id = any($1::uuid[])
         and ($4::text[] is null or m.role = any($4::text[]))
         and ($5::float8 is null or m.created_at >= to_timestamp($5)) and ($6::float8 is null or m.created_at < to_timestamp($6))
         and (to_tsvector('simple', m.content) @@ q.query or m.content ilike $3)
     ) m order by score desc, seq desc limit $7`,
    [
      conversations.filter((id) => /^[0-9a-f-]{36}$/i.test(id)),
      params.query,
      `%${escapeLike(params.query)}%`,
      f.roles ?? null,
      f.since ?? null,
      f.until ?? null,
      params.top_k,
    ],
  );
  return { items: rows.map((r) => ({ ...item(r), score: r.score })) };
};
