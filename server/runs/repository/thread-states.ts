import "server-only";
import { getPool } from "@/server/db";

// The engine's write of a thread's shared state (thread_states) as a run ends; the thread-state
// room (server/thread-state) reads it for the runs and pages that follow.

/** Keeps `json` (a serialized state object) as the thread's state, written by the end of run `runId`. */
export async function saveThreadState({ threadId, runId, json }: { threadId: string; runId: string; json: string }): Promise<void> {
  await getPool().query({
    name: "dispatch-thread-state-save",
    text: `insert into thread_states (thread_id, state, run_id, updated_at) values ($1, $2::jsonb, $3, now())
           on conflict (thread_id) do update set state = excluded.state, run_id = excluded.run_id, updated_at = excluded.updated_at`,
    values: [threadId, json, runId],
  });
}
