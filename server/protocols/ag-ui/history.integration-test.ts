import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { getHistoryDay, getHistoryDayText } from "@/server/threads/service/history";
import { encodeJsonText } from "@/server/lib/json-text";
import { LOCAL_BUCKET } from "@/server/storage/driver";
import { postProcess } from "@/server/tools/project-cli/post-process";
import { createTestUser } from "@/test/helpers";
import { historyMessageSchema, historySnapshotSchema } from "./history";

// The /history message schema against both of its writers: the text PostgreSQL renders when a
// message is written (dispatch_history_json), and a whole page with the messages the server
// renders on each read.

type Row = { seq: number; role: string; messageId: string; content: string; at: string; metadata?: Record<string, unknown> };

async function seedThread(userId: string, rows: Row[]): Promise<string> {
  const threadId = randomUUID();
  await getPool().query("insert into threads (id, user_id, title, last_seq, updated_at) values ($1, $2, 'history', $3, now())", [threadId, userId, rows.length]);
  for (const r of rows) {
    await getPool().query(
      "insert into messages (id, thread_id, seq, role, message_id, content, metadata, created_at) values (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7)",
      [threadId, r.seq, r.role, r.messageId, r.content, JSON.stringify(r.metadata ?? {}), r.at],
    );
  }
  return threadId;
}

/** What PostgreSQL stored for each message, by seq: its text, or null for the server to render. */
async function storedTexts(threadId: string): Promise<(string | null)[]> {
  const { rows } = await getPool().query<{ history_json: string | null }>("select history_json from messages where thread_id = $1 order by seq", [threadId]);
  return rows.map((r) => r.history_json);
}

describe("historyMessageSchema", () => {
  it("is what PostgreSQL renders for the spec's example messages", async () => {
    const user = await createTestUser();
    const threadId = await seedThread(user.id, [
      { seq: 1, role: "user", messageId: "msg-001", content: "帮我创建一个日程", at: "2026-03-15 10:00:00" },
      { seq: 2, role: "assistant", messageId: "msg-002", content: "好的,我来帮您创建日程。", at: "2026-03-15 10:00:05" },
    ]);

    const messages = (await storedTexts(threadId)).map((text) => historyMessageSchema.parse(JSON.parse(text!)));
    // As the spec's example shows them, with the timestamp's milliseconds, Dispatch's
    // `attachments`, and no card on an assistant message (Dispatch's answers carry none).
    expect(messages).toEqual([
      { id: "msg-001", seq: 1, role: "user", content: "帮我创建一个日程", url: null, attachments: [], timestamp: "2026-03-15T10:00:00.000Z" },
      { id: "msg-002", seq: 2, role: "assistant", content: "好的,我来帮您创建日程。", uiSchema: null, timestamp: "2026-03-15T10:00:05.000Z" },
    ]);
  });

  it("refuses what the page must not show: an unknown field, a missing one, a timestamp without milliseconds", () => {
    const message = { id: "m", seq: 1, role: "assistant", content: "", uiSchema: null, timestamp: "2026-03-15T10:00:05.000Z" };
    expect(historyMessageSchema.safeParse(message).success).toBe(true);
    expect(historyMessageSchema.safeParse({ ...message, extra: 1 }).success).toBe(false);
    expect(historyMessageSchema.safeParse({ ...message, uiSchema: undefined }).success).toBe(false);
    expect(historyMessageSchema.safeParse({ ...message, timestamp: "2026-03-15T10:00:05Z" }).success).toBe(false);
    expect(historyMessageSchema.safeParse({ ...message, role: "user" }).success).toBe(false);
  });

  it("covers a whole page: the database's messages and the cards and signed URLs the server adds", async () => {
    const user = await createTestUser();
    const args = { module: "memory", method: "update", input: {} };
    const data = { written: [{ key: "dentist", value: "Dr. Lima", updated_at: "2026-03-15T02:00:00.000Z" }], forgotten: [], not_found: [] };
    const { output } = postProcess({ toolCallId: "call_1", args, outcome: { ok: true, module: "memory", method: "update", data } });
    const image = { bucket: LOCAL_BUCKET, path: `agent-inputs/${user.id}/a.png`, mime_type: "image/png" };
    const threadId = await seedThread(user.id, [
      { seq: 1, role: "user", messageId: "u-1", content: "remember my dentist", at: "2026-03-15 10:00:00" },
      { seq: 2, role: "tool", messageId: "t-2", content: "{}", at: "2026-03-15 10:00:01", metadata: { tool_agent_output: output } },
      { seq: 3, role: "assistant", messageId: "a-3", content: "Done.", at: "2026-03-15 10:00:02" },
      { seq: 4, role: "user", messageId: "u-4", content: "and this", at: "2026-03-15 10:00:03", metadata: { user_message_attachments: image } },
    ]);
    // The tool result and the user message with an attachment are the server's to render.
    expect((await storedTexts(threadId)).map((text) => text !== null)).toEqual([true, false, true, false]);

    const body = JSON.parse((encodeJsonText(await getHistoryDayText({ userId: user.id, threadId, before: null, requestOrigin: "http://dispatch.test" }))).toString("utf8"));
    const page = historySnapshotSchema.parse(body);
    expect(page).toEqual(body);
    expect(page.messages.map((m) => m.role)).toEqual(["user", "tool", "assistant", "user"]);
    expect(page.messages[1]).toMatchObject({ role: "tool", uiSchema: { version: "2.0" } });
    expect(page.messages[3]).toMatchObject({ role: "user", attachments: [{ path: image.path }] });

    expect(historySnapshotSchema.parse(await getHistoryDay({ userId: user.id, threadId, before: null, requestOrigin: "http://dispatch.test" }))).toMatchObject({
      threadId,
      day: "2026-03-15",
      hasMore: false,
    });
  });
});
