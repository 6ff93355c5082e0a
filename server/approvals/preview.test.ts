import { describe, expect, it } from "vitest";
import { approvalCard } from "./preview";
import type { ApprovalRow } from "./repository";

const row: ApprovalRow = {
  id: "5b0c1f8e-3f7a-4c41-9a53-0d3c2b7f9e11",
  runId: "8c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
  threadId: "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
  userId: "9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f",
  toolCallId: "call_1",
  action: "calendar.create",
  input: { title: "Call with Ana", start_at: "2026-11-27T10:00:00+08:00", duration_minutes: 30 },
  status: "pending",
  policy: "always",
  decidedBy: null,
  decidedAsAdmin: false,
  decidedAt: null,
  reason: null,
  editedInput: null,
  expiresAt: new Date("2026-11-28T02:00:00Z"),
  resolvedRunId: null,
  createdAt: new Date("2026-11-27T02:00:00Z"),
};

const nodes = (card: ReturnType<typeof approvalCard>) => (card.root.type === "stack" ? card.root.children : []);

describe("approvalCard", () => {
  it("speaks the requested language, and shows the expiry and the input's instants as datetime nodes, not text", () => {
    const now = new Date("2026-11-27T03:00:00Z");
    const en = approvalCard(row, { now });
    expect(en.locale).toBe("en");
    expect(nodes(en)).toEqual(
      expect.arrayContaining([
        { type: "text", role: "title", content: "Add “Call with Ana” to your calendar?" },
        { type: "badge", label: "Waiting for your approval", status: "pending" },
        { type: "datetime", value: "2026-11-27T10:00:00+08:00", format: "datetime", label: "Start at" },
        { type: "datetime", value: "2026-11-28T02:00:00.000Z", format: "datetime", label: "Expires" },
      ]),
    );
    expect(JSON.stringify(en)).not.toContain("Expires 2026");
    const kv = nodes(en).find((n) => n.type === "key_value");
    // The title is in the question; the rest of what the module says matters is listed.
    expect(kv).toEqual({ type: "key_value", items: [{ label: "Duration minutes", value: "30" }] });

    const zh = approvalCard({ ...row, status: "denied", reason: "not now" }, { now, locale: "zh-CN" });
    expect(zh.locale).toBe("zh-CN");
    expect(nodes(zh)).toEqual(
      expect.arrayContaining([
        { type: "text", role: "title", content: "把“Call with Ana”加入你的日历？" },
        { type: "badge", label: "已拒绝：未执行", status: "warning" },
        { type: "text", role: "body", content: "原因：not now" },
      ]),
    );
    // Over, it has no expiry to show; the input's instant stays.
    expect(nodes(zh).filter((n) => n.type === "datetime")).toEqual([{ type: "datetime", value: "2026-11-27T10:00:00+08:00", format: "datetime", label: "Start at" }]);
  });

  const titleOf = (card: ReturnType<typeof approvalCard>) => nodes(card).find((n) => n.type === "text" && n.role === "title");
  const now = new Date("2026-11-27T03:00:00Z");

  it("asks in a person's words, with no action name and no JSON anywhere", () => {
    const cases: [Partial<ApprovalRow>, string, string][] = [
      [{ action: "calendar.create", input: { ...row.input as object, attendees: ["ana.souza@example.com"] } }, "Add “Call with Ana” to your calendar and invite ana.souza@example.com?", "把“Call with Ana”加入你的日历并邀请 ana.souza@example.com？"],
      [{ action: "memory.update", input: { facts: [{ key: "prefers_aisle_seats", value: "Prefers aisle seats" }] } }, "Remember “Prefers aisle seats”?", "记住“Prefers aisle seats”？"],
      [{ action: "memory.update", input: { facts: [{ key: "favourite_colour", value: "green" }, { key: "city", value: "Paris" }] } }, "Remember your favourite colour: “green”; your city: “Paris”?", "记住favourite colour：“green”；city：“Paris”？"],
      [{ action: "memory.update", input: { key: "home.city", value: null } }, "Forget what you know of home city?", "忘掉关于home city的内容？"],
      [{ action: "calendar.update", input: { event_id: row.id, start_at: "2026-11-27T11:00:00+08:00", location: null } }, "Change the time, place of an event in your calendar? Anyone invited sees the change.", "修改日历中一个活动的时间、地点？受邀的人会看到这个改动。"],
      [{ action: "calendar.share", input: { event_id: row.id, email: "bob@example.com" } }, "Invite bob@example.com to an event in your calendar?", "邀请 bob@example.com 参加你日历中的一个活动？"],
      // An MCP server's tool declares no question: its name and server speak for it.
      [{ action: "tickets.create_ticket", input: { title: "Printer", meta: { floor: 3, tags: ["urgent"] } } }, "Let the assistant use “create ticket” on tickets?", "允许助手使用 tickets 的“create ticket”？"],
    ];
    for (const [change, en, zh] of cases) {
      const card = approvalCard({ ...row, ...change }, { now });
      expect(titleOf(card)).toEqual({ type: "text", role: "title", content: en });
      expect(titleOf(approvalCard({ ...row, ...change }, { now, locale: "zh-CN" }))).toEqual({ type: "text", role: "title", content: zh });
      const text = JSON.stringify(card);
      expect(text).not.toContain(change.action!);
      // No JSON object or array of the input is shown as text.
      expect(text).not.toMatch(/\\"[a-z_]+\\":/);
      expect(text).not.toContain(row.id);
    }
    const mcp = nodes(approvalCard({ ...row, action: "tickets.create_ticket", input: { title: "Printer", meta: { floor: 3, tags: ["urgent"] } } }, { now }));
    expect(mcp.find((n) => n.type === "key_value")).toEqual({ type: "key_value", items: [{ label: "Title", value: "Printer" }, { label: "Meta", value: "Floor: 3; Tags: urgent" }] });
  });
});
