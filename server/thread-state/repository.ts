import "server-only";
import { getPool } from "@/server/db";

// thread_states: each thread's latest AG-UI shared state (prisma/schema.prisma, ThreadState).

/** The state the user's thread keeps, or null when it keeps none (or is not the user's). */
export async function findOwnedThreadState({ userId, threadId }: { userId: string; threadId: string }): Promise<Record<string, unknown> | null> {
  const { rows } = await getPool().query<{ state: Record<string, unknown> }>({
    name: "dispatch-thread-state",
    text: "select s.state from thread_states s join threads t on t.id = s.thread_id where s.thread_id = $1 and t.user_id = $2",
    values: [threadId, userId],
  });
  return rows[0]?.state ?? null;
}

/** Keeps `json` (a serialized state object) as the thread's state, written by the end of run `runId`. */
export async function saveThreadState({ threadId, runId, json }: { threadId: string; runId: string; json: string }): Promise<void> {
  await getPool().query({
    name: "dispatch-thread-state-save",
    text: `insert into thread_states (thread_id, state, run_id, updated_at) values ($1, $2::jsonb, $3, now())
           on conflict (thread_id) do update set state = excluded.state, run_id = excluded.run_id, updated_at = excluded.updated_at`,
    values: [threadId, json, runId],
  });
}
