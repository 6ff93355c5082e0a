import "server-only";
import { getPool } from "../db";
import { RUN_EVENTS_SQL } from "../repositories/run-events";

// What the agent reads before a run: the thread so far, the user's memory facts, and the
// frontend tool calls the previous run left open. Read-only; the engine writes messages.

export type ThreadMessage = { role: string; content: string; metadata: Record<string, unknown>; runId: string | null };

/** The newest `limit` messages of the thread that belong to other runs, oldest first. */
export async function findRecentThreadMessages({ threadId, excludeRunId, limit }: { threadId: string; excludeRunId: string; limit: number }): Promise<ThreadMessage[]> {
  const { rows } = await getPool().query<ThreadMessage>(
    `select role, content, metadata, run_id as "runId" from (
       select role, content, metadata, run_id, seq from messages
       where thread_id = $1 and (run_id is null or run_id <> $2) and role in ('user', 'assistant', 'tool')
       order by seq desc limit $3
     ) recent order by seq`,
    [threadId, excludeRunId, limit],
  );
  return rows;
}

export async function findMemoryFacts({ userId, limit }: { userId: string; limit: number }): Promise<{ key: string; value: string }[]> {
  const { rows } = await getPool().query<{ key: string; value: string }>(
    `select key, value from memory_facts where user_id = $1 order by updated_at desc, key limit $2`,
    [userId, limit],
  );
  return rows;
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

/** The attachments recorded on this run's user message (`metadata.user_message_attachments`). */
export async function findRunUserAttachments({ runId }: { runId: string }): Promise<{ bucket: string; path: string; mime_type: string }[]> {
  const { rows } = await getPool().query<{ attachments: unknown }>(
    `select metadata->'user_message_attachments' as attachments from messages where run_id = $1 and role = 'user' limit 1`,
    [runId],
  );
  const value = rows[0]?.attachments;
  const list = Array.isArray(value) ? value : value ? [value] : [];
  return list.filter(
    (a): a is { bucket: string; path: string; mime_type: string } =>
      typeof a === "object" && a !== null && typeof a.bucket === "string" && typeof a.path === "string" && typeof a.mime_type === "string",
  );
}
