import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { startFakeLlm, type FakeLlm } from "@/test/fake-llm";
import { createTestUser } from "@/test/helpers";
import { createThread } from "@/test/thread-fixtures";
import { defaultTitle } from "../lib/default-title";
import { cleanModelTitle, titleThreadFromModel } from "./model-title";

// A thread's title from a real model over HTTP (the tests' OpenAI-compatible server, which names a
// conversation "About <its question>"), kept in PostgreSQL unless the user renamed the thread first.

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm({ titles: true });
});
afterAll(async () => {
  await llm.close();
});

const titleOf = async (id: string) => (await getPool().query<{ title: string }>(`select title from threads where id = $1`, [id])).rows[0]!.title;

it("names a thread from the model's reply, and leaves a renamed one alone", async () => {
  const user = await createTestUser();
  const model = createOpenAICompatible({ name: "llm", baseURL: llm.baseUrl, apiKey: llm.apiKey }).chatModel(llm.model);
  const question = "Hello! Can you plan my weekend in Lisbon?";
  const answer = "Here is a plan for two days in Lisbon.";

  const fresh = randomUUID();
  await createThread({ id: fresh, userId: user.id, title: defaultTitle(question) });
  const title = await titleThreadFromModel({ model, threadId: fresh, question, answer });
  expect(title).toBe(cleanModelTitle(`About ${question}`));
  expect(title).not.toBe(defaultTitle(question));
  expect(await titleOf(fresh)).toBe(title);

  const renamed = randomUUID();
  await createThread({ id: renamed, userId: user.id, title: "Lisbon trip (mine)" });
  expect(await titleThreadFromModel({ model, threadId: renamed, question, answer })).toBeNull();
  expect(await titleOf(renamed)).toBe("Lisbon trip (mine)");
});
