import "server-only";
import { getPool } from "../db";
import { RUN_EVENTS_SQL } from "../runs/repository/run-events";
import { toPrefetchedContext, type AgentContextJson } from "../runs/repository/runs";
import type { ContextPrefetch, PrefetchedContext, PrefetchedMessage } from "../kernel/runs";

// What the agent reads before a run: the thread so far, the user's memory facts, and the
// frontend tool calls the previous run left open. The engine writes messages; the agent writes
// only the title a real model gives a thread after its first answer.

export type ThreadMessage = PrefetchedMessage;

export type AttachmentRef = { bucket: string; path: string; mime_type: string };

/**
 * What a run starts from when the engine did not read it already (Runner.prefetch): the
 * newest `historyLimit` messages of the thread that belong to other runs (oldest first), the
 * user's newest memory facts and the skills the run does not show (dispatch_agent_context, which
 * accepting the run also uses): a run taken over or started from the queue reads them here.
 */
export async function findAgentContext(opts: { threadId: string; runId: string; userId: string } & ContextPrefetch): Promise<PrefetchedContext> {
  const { rows } = await getPool().query<{ context: AgentContextJson }>(`select dispatch_agent_context($1, $2, $3, $4, $5) as context`, [
    opts.threadId,
    opts.runId,
    opts.userId,
    opts.historyLimit,
    opts.memoryLimit,
  ]);
  return toPrefetchedContext(rows[0]!.context);
}

/**
 * What this run completed before the execution that streamed it stopped (oldest first): its
 * answers and its tool results, as the engine recorded them. The user message and the client's
 * tool answers it came with are read as for a fresh run.
 */
export async function findRunProgress({ threadId, runId }: { threadId: string; runId: string }): Promise<ThreadMessage[]> {
  const { rows } = await getPool().query<ThreadMessage>(
    `select role, content, metadata, run_id as "runId" from messages
     where thread_id = $1 and run_id = $2 and role in ('assistant', 'tool') and metadata->>'stage' in ('answer', 'tool_execution')
     order by seq`,
    [threadId, runId],
  );
  return rows;
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

/**
 * The tool-call events of the run before `runId` on the thread, in order, with its state and
 * CUSTOM events (what its predicted calls wrote: server/agent/predictive-state.ts).
 */
export async function findPreviousRunToolEvents({ threadId, runId }: { threadId: string; runId: string }): Promise<ToolEventRow[]> {
  const { rows } = await getPool().query<ToolEventRow>(
    `select e.type, e.payload::json as payload from ${RUN_EVENTS_SQL} e
     where e.run_id = (select id from runs where thread_id = $1 and id <> $2 and created_at <= (select created_at from runs where id = $2)
                       order by created_at desc limit 1)
       and e.type in ('TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_RESULT', 'CUSTOM', 'STATE_SNAPSHOT', 'STATE_DELTA')
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

/** Sets the thread's title to `to` if it is still `from` (the title its first question gave it, not one the user chose); whether it did. */
export async function retitleThreadIfDefault({ threadId, from, to }: { threadId: string; from: string; to: string }): Promise<boolean> {
  const { rowCount } = await getPool().query(`update threads set title = $3 where id = $1 and title = $2 and title <> $3`, [threadId, from, to]);
  return (rowCount ?? 0) > 0;
}
