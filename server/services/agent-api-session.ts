import "server-only";
import { createHash } from "node:crypto";
import { UUID_PATTERN } from "../protocols/ag-ui/run-input-rules";
import { findAgentApiSessionName, recordAgentApiSession } from "../repositories/agent-api-sessions";

// An Agent API session_id is the client's name for its session, any string (request.ts bounds
// it). A UUID names the thread itself: that is what a response answers for a session the server
// created, and what clients that make up uuid4 session ids send. Any other name is scoped to the
// caller: its thread id is derived from the user's id and the name (a name-based UUID), so two
// callers using the same name get two sessions and no name reaches someone else's thread.

// The namespace of the name-based UUIDs, fixed forever: changing it would orphan every session.
const SESSION_NAMESPACE = Buffer.from("6d2f0c1e8a4b4e0f9a51c7d3b2e4f8a1", "hex");

/** RFC 9562 version 5 UUID of `name` in the sessions' namespace. */
function nameBasedUuid(name: string): string {
  const bytes = createHash("sha1").update(SESSION_NAMESPACE).update(name, "utf8").digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export type AgentApiSession = { threadId: string; name: string; named: boolean };

/** The thread a session_id names for this caller. */
export function sessionThread(userId: string, sessionId: string): AgentApiSession {
  if (UUID_PATTERN.test(sessionId)) return { threadId: sessionId.toLowerCase(), name: sessionId, named: false };
  return { threadId: nameBasedUuid(`${userId}\n${sessionId}`), name: sessionId, named: true };
}

/** Keeps a named session's name, so responses found by response_id alone answer with it. */
export async function rememberSessionName(userId: string, session: AgentApiSession): Promise<void> {
  if (session.named) await recordAgentApiSession({ threadId: session.threadId, userId, sessionId: session.name });
}

/** The session_id a response of this thread answers with. */
export async function sessionNameOf(threadId: string): Promise<string> {
  return (await findAgentApiSessionName({ threadId })) ?? threadId;
}
