// The AG-UI door's resent history: threads of N messages written straight into the database,
// each resent whole, with the earlier turns' user messages and one new user message, on every run
// (as CopilotKit and HttpAgent do; Dispatch skips resent assistant messages, so the answers are
// left out). A resend without the earlier turns would be an edit that forks the thread
// (docs/branches.md), not a follow-up turn.
import { randomUUID } from "node:crypto";
import pg from "pg";

type Message = { id: string; role: "user" | "assistant"; content: string };
/** `turns`: the user messages the bench's runs have sent on the thread since it was seeded. */
export type Conversation = { threadId: string; messages: Message[]; turns: Message[] };

export async function seedConversations(databaseUrl: string, userId: string, opts: { threads: number; messages: number }): Promise<Conversation[]> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const conversations: Conversation[] = [];
    for (let t = 0; t < opts.threads; t++) {
      const threadId = randomUUID();
      const messages = Array.from({ length: opts.messages }, (_, i) => ({
        id: `seed-${randomUUID()}`,
        role: i % 2 === 0 ? ("user" as const) : ("assistant" as const),
        content: i % 2 === 0 ? `Question ${i / 2}: what is on my calendar this week?` : `Answer ${(i - 1) / 2}: ${"nothing much today, ".repeat(8)}`,
      }));
      await db.query("insert into threads (id, user_id, title, updated_at, last_seq) values ($1, $2, 'bench conversation', now(), $3)", [threadId, userId, messages.length]);
      await db.query(
        `insert into messages (id, thread_id, seq, role, message_id, content, metadata)
         select gen_random_uuid(), $1, m.ord, m.role, m.id, m.content, '{}' from unnest($2::text[], $3::text[], $4::text[]) with ordinality as m(id, role, content, ord)`,
        [threadId, messages.map((m) => m.id), messages.map((m) => m.role), messages.map((m) => m.content)],
      );
      conversations.push({ threadId, messages, turns: [] });
    }
    return conversations;
  } finally {
    await db.end();
  }
}

/** About 20 KB of shared state: a list the agent's patches leave alone. */
export const BENCH_STATE: Record<string, unknown> = {
  items: Array.from({ length: 160 }, (_, i) => ({ id: `item-${i}`, title: `Item number ${i} of the bench's state`, done: i % 3 === 0, note: "x".repeat(48) })),
};

/**
 * The conversation resent with its turns and one new user message, which becomes a turn when
 * `keep` (the thread grows by a turn a run; the request by one message).
 */
export function conversationBody(conversation: Conversation, text: string, state: Record<string, unknown> = {}, keep = false): string {
  const message: Message = { id: `msg-${randomUUID()}`, role: "user", content: text };
  const messages = [...conversation.messages, ...conversation.turns, message];
  if (keep) conversation.turns.push(message);
  return JSON.stringify({
    threadId: conversation.threadId,
    runId: `bench-${randomUUID()}`,
    state,
    messages,
    tools: [],
    context: [],
    forwardedProps: {},
  });
}
