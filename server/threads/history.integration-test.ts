import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { AppError } from "@/server/kernel/errors";
import { getStorage, LOCAL_BUCKET } from "@/server/storage/driver";
import { postProcess } from "@/server/tools/project-cli/post-process";
import { compileToolUiSchema } from "@/server/tools/project-cli/tool";
import { createTestUser } from "@/test/helpers";
import { getHistoryDay, getHistoryDayText, parseHistoryDate } from "./service/history";
import { encodeJsonText } from "@/server/lib/json-text";

// The history page against real rows: which day, which messages in which order, and each
// message's fields exactly as the protocol shows them.

type Row = { seq: number; role: string; at: string; content?: string; messageId?: string; metadata?: Record<string, unknown> };

async function seedThread(userId: string, rows: Row[], updatedAt = "2026-03-16 00:00:00"): Promise<string> {
  const threadId = randomUUID();
  await getPool().query("insert into threads (id, user_id, title, last_seq, updated_at) values ($1, $2, 'history', $3, $4)", [
    threadId,
    userId,
    Math.max(0, ...rows.map((r) => r.seq)),
    updatedAt,
  ]);
  for (const r of rows) {
    await getPool().query(
      "insert into messages (id, thread_id, seq, role, message_id, run_id, content, metadata, created_at) values (gen_random_uuid(), $1, $2, $3, $4, null, $5, $6, $7)",
      [threadId, r.seq, r.role, r.messageId ?? `m-${r.seq}`, r.content ?? `message ${r.seq}`, JSON.stringify(r.metadata ?? {}), r.at],
    );
  }
  return threadId;
}

const page = (userId: string, threadId: string | null, before?: string) =>
  getHistoryDay({ userId, threadId, before: parseHistoryDate(before ?? null), requestOrigin: "http://dispatch.test" });

describe("getHistoryDay", () => {
  it("serves one UTC day in seq order with millisecond timestamps, then the days before it", async () => {
    const user = await createTestUser();
    const threadId = await seedThread(user.id, [
      { seq: 1, role: "user", at: "2026-03-14 23:59:59.999" },
      { seq: 2, role: "user", at: "2026-03-15 00:00:00" },
      // Stored before seq 3 and stamped earlier: the page follows seq, not the clock or the table.
      { seq: 4, role: "tool", at: "2026-03-15 07:00:00.12" },
      { seq: 3, role: "assistant", at: "2026-03-15 08:00:00.5" },
      { seq: 5, role: "system", at: "2026-03-15 09:00:00" },
      { seq: 6, role: "assistant", at: "2026-03-15 23:59:59.999" },
      { seq: 7, role: "user", at: "2026-03-11 12:00:00" },
    ]);

    const today = await page(user.id, threadId);
    expect(today).toMatchObject({ scope: "history_day", threadId, day: "2026-03-15", hasMore: true });
    expect(today.messages.map((m) => [m.seq, m.role, m.timestamp])).toEqual([
      [2, "user", "2026-03-15T00:00:00.000Z"],
      [3, "assistant", "2026-03-15T08:00:00.500Z"],
      [4, "tool", "2026-03-15T07:00:00.120Z"],
      [6, "assistant", "2026-03-15T23:59:59.999Z"],
    ]);
    expect(today.messages[0]).toEqual({ id: "m-2", seq: 2, role: "user", content: "message 2", url: null, attachments: [], timestamp: "2026-03-15T00:00:00.000Z" });
    expect(today.messages[1]).toEqual({ id: "m-3", seq: 3, role: "assistant", content: "message 3", uiSchema: null, timestamp: "2026-03-15T08:00:00.500Z" });

    const before = await page(user.id, threadId, "2026-03-15");
    expect(before).toMatchObject({ threadId, day: "2026-03-14", hasMore: true });
    expect(before.messages.map((m) => [m.seq, m.timestamp])).toEqual([[1, "2026-03-14T23:59:59.999Z"]]);

    const oldest = await page(user.id, threadId, "2026-03-14");
    expect(oldest).toMatchObject({ day: "2026-03-11", hasMore: false });
    expect(oldest.messages.map((m) => m.seq)).toEqual([7]);

    expect(await page(user.id, threadId, "2026-03-11")).toEqual({ scope: "history_day", threadId, day: null, hasMore: false, messages: [] });
  });

  it("compiles tool cards as TOOL_CALL_RESULT did and signs every stored attachment afresh", async () => {
    const user = await createTestUser();
    const args = { module: "memory", method: "update", input: {} };
    const data = { written: [{ key: "dentist", value: "Dr. Lima", updated_at: "2026-03-15T02:00:00.000Z" }], forgotten: [], not_found: [] };
    const { output } = postProcess({ toolCallId: "call_1", args, outcome: { ok: true, module: "memory", method: "update", data } });
    const image = (name: string) => ({ bucket: LOCAL_BUCKET, path: `agent-inputs/${user.id}/${name}.png`, mime_type: "image/png" });
    const threadId = await seedThread(user.id, [
      { seq: 1, role: "tool", at: "2026-03-15 10:00:00", metadata: { tool_agent_output: output } },
      { seq: 2, role: "tool", at: "2026-03-15 10:00:01", metadata: { tool_agent_output: { ui_hints: { kind: "no such card" } } } },
      { seq: 3, role: "tool", at: "2026-03-15 10:00:02" },
      { seq: 4, role: "user", at: "2026-03-15 10:00:03", metadata: { user_message_attachments: image("one") } },
      {
        seq: 5,
        role: "user",
        at: "2026-03-15 10:00:04",
        // A storage this server no longer uses has no URL to give.
        metadata: { user_message_attachments: [image("two"), { bucket: "elsewhere", path: "x.png", mime_type: "image/png" }, image("three")] },
      },
      { seq: 6, role: "user", at: "2026-03-15 10:00:05", metadata: { user_message_attachments: { bucket: 7 } } },
      // Only user messages carry attachments, and only tool messages carry cards.
      { seq: 7, role: "assistant", at: "2026-03-15 10:00:06", metadata: { user_message_attachments: image("four"), tool_agent_output: output } },
    ]);

    const { messages } = await page(user.id, threadId);
    const bySeq = new Map(messages.map((m) => [m.seq, m]));
    const card = compileToolUiSchema(output);
    expect(card).not.toBeNull();
    expect(JSON.stringify(bySeq.get(1))).toContain(JSON.stringify(card));
    expect(bySeq.get(1)).toMatchObject({ role: "tool", uiSchema: card });
    expect(bySeq.get(2)).toMatchObject({ role: "tool", uiSchema: null });
    expect(bySeq.get(3)).toMatchObject({ role: "tool", uiSchema: null });
    expect(bySeq.get(6)).toMatchObject({ role: "user", url: null, attachments: [] });
    expect(bySeq.get(7)).toEqual({ id: "m-7", seq: 7, role: "assistant", content: "message 7", uiSchema: null, timestamp: "2026-03-15T10:00:06.000Z" });

    const withImages = [bySeq.get(4), bySeq.get(5)].map((m) => (m?.role === "user" ? m : null));
    expect(withImages[0]?.attachments.map((a) => a.path)).toEqual([image("one").path]);
    expect(withImages[1]?.attachments.map((a) => a.path)).toEqual([image("two").path, image("three").path]);
    const storage = getStorage();
    if (storage.name !== "local") throw new Error("the tests run on local-disk storage");
    for (const m of withImages) {
      expect(m?.url).toBe(m?.attachments[0]?.url);
      for (const a of m?.attachments ?? []) {
        const url = new URL(a.url);
        expect(url.origin).toBe("http://dispatch.test");
        expect(storage.verifyToken(url.searchParams.get("token"), { bucket: a.bucket, path: a.path, op: "get" })).toMatchObject({ ok: true });
      }
    }
    const urlOfFour = (p: Awaited<ReturnType<typeof page>>) => {
      const m = p.messages.find((x) => x.seq === 4);
      return m?.role === "user" ? m.url : undefined;
    };
    expect(urlOfFour(await page(user.id, threadId))).not.toBe(urlOfFour(await page(user.id, threadId)));
  });

  it("defaults to the caller's latest thread and never shows another user's", async () => {
    const [alice, bob] = await Promise.all([createTestUser(), createTestUser()]);
    await seedThread(alice.id, [{ seq: 1, role: "user", at: "2026-03-10 09:00:00" }], "2026-03-10 09:00:00");
    const latest = await seedThread(
      alice.id,
      [
        { seq: 1, role: "user", at: "2026-03-12 09:00:00" },
        { seq: 2, role: "user", at: "2026-03-13 09:00:00" },
      ],
      "2026-03-13 09:00:00",
    );
    const bobs = await seedThread(bob.id, [{ seq: 1, role: "user", at: "2026-03-20 09:00:00" }], "2026-03-20 09:00:00");

    expect(await page(alice.id, null)).toMatchObject({ threadId: latest, day: "2026-03-13", hasMore: true, messages: [{ seq: 2 }] });
    expect(await page(alice.id, null, "2026-03-13")).toMatchObject({ threadId: latest, day: "2026-03-12", hasMore: false, messages: [{ seq: 1 }] });
    await expect(page(alice.id, bobs)).rejects.toThrow(new AppError("NOT_FOUND", `Thread ${bobs} not found`));
    await expect(page(alice.id, bobs, "2026-03-21")).rejects.toThrow(AppError);
    const nobody = await createTestUser();
    expect(await page(nobody.id, null)).toEqual({ scope: "history_day", threadId: null, day: null, hasMore: false, messages: [] });
  });

  it("answers with the bytes JSON.stringify gives the page, whatever the text holds", async () => {
    const user = await createTestUser();
    const tricky = [
      'quotes " and \\ backslashes, a "/" and </script>',
      "lines\nand\ttabs\r\n\b\f, and every other control character: \u0001\u0002\u001f\u007f",
      "ünïcødé, 中文, emoji 🧭 and separators \u2028\u2029",
      "",
    ];
    const threadId = await seedThread(
      user.id,
      tricky.map((content, i) => ({ seq: i + 1, role: i % 2 ? "assistant" : "user", at: `2026-03-15 10:00:0${i}.25`, content, messageId: `id "${i}" \\ \u0001` })),
    );
    const expected = {
      scope: "history_day",
      threadId,
      day: "2026-03-15",
      hasMore: false,
      messages: tricky.map((content, i) => {
        const id = `id "${i}" \\ \u0001`;
        const timestamp = `2026-03-15T10:00:0${i}.250Z`;
        return i % 2
          ? { id, seq: i + 1, content, timestamp, role: "assistant", uiSchema: null }
          : { id, seq: i + 1, content, timestamp, role: "user", url: null, attachments: [] };
      }),
    };
    const bytes = encodeJsonText(await getHistoryDayText({ userId: user.id, threadId, before: null }));
    expect(bytes.toString("utf8")).toBe(JSON.stringify(expected));
    expect(await page(user.id, threadId)).toEqual(expected);
  });

  it("keeps seq order across a long day where the server renders some messages between the database's", async () => {
    const user = await createTestUser();
    const image = { bucket: LOCAL_BUCKET, path: `agent-inputs/${user.id}/a.png`, mime_type: "image/png" };
    // 200 messages in one day; tool results and user messages with attachments scattered through
    // them, on both sides of every 64th seq, and first and last.
    const special = new Set([1, 2, 63, 64, 65, 100, 127, 128, 129, 150, 151, 199, 200]);
    const rows: Row[] = Array.from({ length: 200 }, (_, i) => {
      const seq = i + 1;
      const at = `2026-03-15 ${String(Math.floor(i / 60) + 10).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}:00`;
      if (!special.has(seq)) return { seq, role: seq % 2 ? "user" : "assistant", at };
      return seq % 2 ? { seq, role: "tool", at } : { seq, role: "user", at, metadata: { user_message_attachments: image } };
    });
    const threadId = await seedThread(user.id, rows);

    const snapshot = await page(user.id, threadId);
    expect(snapshot.messages.map((m) => [m.seq, m.role])).toEqual(rows.map((r) => [r.seq, r.role]));
    expect(snapshot.messages.map((m) => m.content)).toEqual(rows.map((r) => `message ${r.seq}`));
    const signed = snapshot.messages.filter((m) => m.role === "user" && m.attachments.length > 0).map((m) => m.seq);
    expect(signed).toEqual([2, 64, 100, 128, 150, 200]);

    const bytes = encodeJsonText(await getHistoryDayText({ userId: user.id, threadId, before: null, requestOrigin: "http://dispatch.test" }));
    const fromBytes = JSON.parse(bytes.toString("utf8")) as typeof snapshot;
    // Equal but for the signed URLs, which are fresh on every read.
    const unsigned = (s: typeof snapshot) => s.messages.map((m) => (m.role === "user" ? { ...m, url: null, attachments: m.attachments.map((a) => a.path) } : m));
    expect(unsigned(fromBytes)).toEqual(unsigned(snapshot));
    expect({ ...fromBytes, messages: [] }).toEqual({ ...snapshot, messages: [] });
  });
});
