import "server-only";
import { getPool } from "@/server/db";

// thread_states: each thread's latest AG-UI shared state (prisma/schema.prisma, ThreadState),
// read here; the run engine writes it as a run ends (server/runs/repository/thread-states.ts).

/** The state the user's thread keeps, or null when it keeps none (or is not the user's). */
export async function findOwnedThreadState({ userId, threadId }: { userId: string; threadId: string }): Promise<Record<string, unknown> | null> {
  const { rows } = await getPool().query<{ state: Record<string, unknown> }>({
    name: "dispatch-thread-state",
    text: "select s.state from thread_states s join threads t on t.id = s.thread_id where s.thread_id = $1 and t.user_id = $2",
    values: [threadId, userId],
  });
  return rows[0]?.state ?? null;
}
