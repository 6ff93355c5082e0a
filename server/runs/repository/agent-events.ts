import "server-only";
import { getPool } from "../../db";
import type { AgentEventModel } from "../../generated/prisma/models";

// The EventLog (agent_events): the entry events a thread's runs answered, numbered per thread.

/** raw_ref names where the full entry came from (kind and id), as the accept step stored it. */
export type AgentEventRow = Omit<AgentEventModel, "userId" | "data" | "rawRef"> & {
  data: Record<string, unknown>;
  rawRef: { kind: string; id: string; size?: number | null } | null;
};

const COLUMNS = `id, thread_id as "threadId", seq, event_type as "eventType", source, source_event_type as "sourceEventType", data, raw_ref as "rawRef",
  created_at as "createdAt"`;

export async function findThreadEvent({ id, threadId }: { id: string; threadId: string }): Promise<AgentEventRow | null> {
  const { rows } = await getPool().query<AgentEventRow>(`select ${COLUMNS} from agent_events where id = $1 and thread_id = $2`, [id, threadId]);
  return rows[0] ?? null;
}

/** Up to `limit` of the thread's events before `beforeSeq` (all when null), newest first. */
export async function listThreadEventsBefore({ threadId, beforeSeq, limit }: { threadId: string; beforeSeq: number | null; limit: number }): Promise<AgentEventRow[]> {
  const { rows } = await getPool().query<AgentEventRow>(
    `select ${COLUMNS} from agent_events where thread_id = $1 and ($2::int is null or seq < $2) order by seq desc limit $3`,
    [threadId, beforeSeq, limit],
  );
  return rows;
}
