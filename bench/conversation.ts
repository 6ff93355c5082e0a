// The AG-UI door's resent history: threads of N messages written straight into the database,
// each resent whole, with one new user message, on every run (as CopilotKit and HttpAgent do).
import { randomUUID } from "node:crypto";
import pg from "pg";

export type Conversation = { threadId: string; messages: { id: string; role: "user" | "assistant"; content: string }[] };

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
      conversations.push({ threadId, messages });
    }
    return conversations;
  } finally {
    await db.end();
  }
}

/** The conversation resent with one new user message (the thread grows; the request stays N+1 messages). */
/** About 20 KB of shared state: a list the agent's patches leave alone. */
export const BENCH_STATE: Record<string, unknown> = {
  items: Array.from({ length: 160 }, (_, i) => ({ id: `item-${i}`, title: `Item number ${i} of the bench's state`, done: i % 3 === 0, note: "x".repeat(48) })),
};

export function conversationBody(conversation: Conversation, text: string, state: Record<string, unknown> = {}): string {
  return JSON.stringify({
    threadId: conversation.threadId,
    runId: `bench-${randomUUID()}`,
    state,
    messages: [...conversation.messages, { id: `msg-${randomUUID()}`, role: "user", content: text }],
    tools: [],
    context: [],
    forwardedProps: {},
  });
}
