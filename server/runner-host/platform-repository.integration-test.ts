import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { getPool } from "@/server/db";
import { createTestUser } from "@/test/helpers";
import { createEndpoint, startRunSession } from "./api/test-fixtures";
import { editRunnerMessage, insertPlatformMessage } from "./repository/platform";
import { saveConversationSummary } from "./repository/summary";

// The edit of a runner's message and the conversation summary (summary_tail) that covers it.

it("drops the conversation summary when an edit changes a message it covers, and only then", async () => {
  const user = await createTestUser();
  const endpoint = await createEndpoint();
  const run = await startRunSession({ userId: user.id, endpoint });
  const note = (content: string) => insertPlatformMessage({ runId: run.id, threadId: run.threadId, messageId: `msg_${randomUUID()}`, content, metadata: {} });
  const first = await note("first note");
  const second = await note("second note");
  expect([first.seq, second.seq]).toEqual([2, 3]);
  await saveConversationSummary({ threadId: run.threadId, runId: run.id, summary: "a request and a note", coversSeq: 2, messageCount: 2, model: "m", usage: {} });
  const summaries = async () => (await getPool().query(`select covers_seq from conversation_summaries where thread_id = $1`, [run.threadId])).rows;
  const edit = (messageId: string) => editRunnerMessage({ threadId: run.threadId, messageId, runnerId: endpoint.runnerId, content: "edited", metadata: {} });

  expect(await edit(second.messageId)).toMatchObject({ outcome: "edited" });
  expect(await summaries()).toEqual([{ covers_seq: 2 }]);
  expect(await editRunnerMessage({ threadId: run.threadId, messageId: first.messageId, runnerId: "plugin:someone/else/default", content: "x", metadata: {} })).toEqual({ outcome: "not_own" });
  expect(await summaries()).toEqual([{ covers_seq: 2 }]);
  expect(await edit(first.messageId)).toMatchObject({ outcome: "edited", message: { seq: 2, content: "edited" } });
  expect(await summaries()).toEqual([]);
});
