import "server-only";
import { getPool } from "../db";

// The names Agent API clients gave their sessions, for sessions whose thread id was derived from a
// name that is not a thread id (server/agent-api/service/session.ts).

/** Records the session's name for its thread; a name recorded before stays. */
export async function recordAgentApiSession({ threadId, userId, sessionId }: { threadId: string; userId: string; sessionId: string }): Promise<void> {
  await getPool().query({
    name: "dispatch-record-agent-api-session",
    text: "insert into agent_api_sessions (thread_id, user_id, session_id) values ($1, $2, $3) on conflict do nothing",
    values: [threadId, userId, sessionId],
  });
}

/** The name the client gave the thread's session; null for a thread named by its own id. */
export async function findAgentApiSessionName({ threadId }: { threadId: string }): Promise<string | null> {
  const { rows } = await getPool().query<{ sessionId: string }>({
    name: "dispatch-agent-api-session-name",
    text: `select session_id as "sessionId" from agent_api_sessions where thread_id = $1`,
    values: [threadId],
  });
  return rows[0]?.sessionId ?? null;
}
