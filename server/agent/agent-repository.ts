import "server-only";
import { getPool } from "../db";
import { RUN_EVENTS_SQL } from "../repositories/run-events";

// What the agent reads before a run: the thread so far, the user's memory facts, and the
// frontend tool calls the previous run left open. Read-only; the engine writes messages.

export type ThreadMessage = { role: string; content: string; metadata: Record<string, unknown>; runId: string | null };

export type AttachmentRef = { bucket: string; path: string; mime_type: string };

/**
 * What a run starts from when the engine did not read it already (Runner.prefetch): the
 * newest `historyLimit` messages of the thread that belong to other runs (oldest first) and
 * the user's newest memory facts, in one round trip.
 */
export async function findAgentContext(opts: { threadId: string; runId: string; userId: string; historyLimit: number; memoryLimit: number }): Promise<{
  history: ThreadMessage[];
  memoryFacts: { key: string; value: string }[];
}> {
  const { rows } = await getPool().query<{ history: ThreadMessage[]; memory: { key: string; value: string }[] }>(
    `select
       (select coalesce(json_agg(h order by h.seq), '[]') from (
          select role, content, metadata, run_id as "runId", seq from messages
          where thread_id = $1 and (run_id is null or run_id <> $2) and role in ('user', 'assistant', 'tool')
          order by seq desc limit $4) h) as history,
       (select coalesce(json_agg(f), '[]') from (
          select key, value from memory_facts where user_id = $3 order by updated_at desc, key limit $5) f) as memory`,
    [opts.threadId, opts.runId, opts.userId, opts.historyLimit, opts.memoryLimit],
  );
  const row = rows[0]!;
  return { history: row.history.map(({ role, content, metadata, runId }) => ({ role, content, metadata, runId })), memoryFacts: row.memory };
}

/** The attachments recorded on this run's user message (`metadata.user_message_attachments`). */
export async function findRunUserAttachments({ runId }: { runId: string }): Promise<AttachmentRef[]> {
  const { rows } = await getPool().query<{ attachments: unknown }>(
    `select metadata->'user_message_attachments' as attachments from messages where run_id = $1 and role = 'user' limit 1`,
    [runId],
  );
  return attachmentRefs(rows[0]?.attachments);
}

export type ToolEventRow = { type: string; payload: Record<string, unknown> };

/** The tool-call events of the run before `runId` on the thread, in order. */
export async function findPreviousRunToolEvents({ threadId, runId }: { threadId: string; runId: string }): Promise<ToolEventRow[]> {
  const { rows } = await getPool().query<ToolEventRow>(
    `select e.type, e.payload::json as payload from ${RUN_EVENTS_SQL} e
     where e.run_id = (select id from runs where thread_id = $1 and id <> $2 and created_at <= (select created_at from runs where id = $2)
                       order by created_at desc limit 1)
       and e.type in ('TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_RESULT')
     order by e.seq`,
    [threadId, runId],
  );
  return rows;
}

function attachmentRefs(value: unknown): AttachmentRef[] {
  const list = Array.isArray(value) ? value : value ? [value] : [];
  return list.filter(
    (a): a is AttachmentRef =>
      typeof a === "object" && a !== null && typeof a.bucket === "string" && typeof a.path === "string" && typeof a.mime_type === "string",
  );
}
