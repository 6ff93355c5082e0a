import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestUser } from "@/test/helpers";
import { signInOverHttp, trpcGet } from "@/test/http-session";
import { appendMessage, createThread } from "@/test/thread-fixtures";

// The chat sidebar's search (tRPC threads.search) over real HTTP with the browser's session.

type TestUser = Awaited<ReturnType<typeof createTestUser>>;
type Hit = { threadId: string; threadTitle: string; snippet: string; highlights: [number, number][]; rank: number };

async function threadWith(user: TestUser, title: string, messages: string[]): Promise<string> {
  const id = randomUUID();
  await createThread({ id, userId: user.id, title });
  for (const [i, content] of messages.entries()) {
    await appendMessage({ threadId: id, role: i % 2 === 0 ? "user" : "assistant", messageId: `m${i}`, runId: null, content, metadata: {} });
  }
  return id;
}

let owner: TestUser;
let stranger: TestUser;
let cookie = "";
beforeAll(async () => {
  [owner, stranger] = await Promise.all([createTestUser(), createTestUser()]);
  cookie = (await signInOverHttp(owner.email, owner.password))!;
});

async function search(q: string, headers: Record<string, string> = { cookie }): Promise<{ status: number; hits: Hit[] }> {
  const res = await trpcGet("threads.search", { q, limit: 10 }, headers);
  if (res.status !== 200) return { status: res.status, hits: [] };
  return { status: 200, hits: ((await res.json()) as { result: { data: { json: Hit[] } } }).result.data.json };
}

describe("threads.search", () => {
  it("finds a thread by a word of its third message, ranked, highlighted, each thread once", async () => {
    const word = `zeppelin${Date.now()}`;
    const third = await threadWith(owner, "Trip plans", ["Plan a trip", "Where to?", `Somewhere I can ride a ${word}`]);
    const strong = await threadWith(owner, "Airships", [`${word} ${word}: the ${word} museum`, `More about the ${word}`]);
    await threadWith(owner, "Unrelated", ["nothing to see here"]);
    await threadWith(stranger, "Not yours", [`my own ${word} secret`]);

    const { status, hits } = await search(word);
    expect(status).toBe(200);
    expect(hits.map((h) => h.threadId)).toEqual([strong, third]);
    expect(hits[0]!.rank).toBeGreaterThan(hits[1]!.rank);
    expect(hits[1]).toMatchObject({ threadTitle: "Trip plans", snippet: `Somewhere I can ride a ${word}` });
    expect(hits[1]!.highlights.map(([s, e]) => hits[1]!.snippet.slice(s, e))).toEqual([word]);
    expect(hits.some((h) => h.snippet.includes("secret"))).toBe(false);
  });

  it("never shows another user's threads, and needs a session and a query", async () => {
    const word = `quokka${Date.now()}`;
    await threadWith(stranger, "Theirs", [`a ${word} here`]);
    expect((await search(word)).hits).toEqual([]);
    expect((await search(word, {})).status).toBe(401);
    expect((await search("   ")).status).toBe(400);
  });
});
