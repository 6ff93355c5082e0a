import "server-only";
import { findAgentApiSessionName, recordAgentApiSession } from "../repository";
import type { NamedThread } from "../../threads/service/thread-names";

// An Agent API session_id is the client's name for its session, any string (request.ts bounds
// it): a UUID names the thread itself, any other name a thread of the caller's own
// (thread-names.ts). A named session's name is kept, so responses found by response_id alone
// answer with it.

export type AgentApiSession = NamedThread;

/** Keeps a named session's name, so responses found by response_id alone answer with it. */
export async function rememberSessionName(userId: string, session: AgentApiSession): Promise<void> {
  if (session.named) await recordAgentApiSession({ threadId: session.threadId, userId, sessionId: session.name });
}

/** The session_id a response of this thread answers with. */
export async function sessionNameOf(threadId: string): Promise<string> {
  return (await findAgentApiSessionName({ threadId })) ?? threadId;
}
