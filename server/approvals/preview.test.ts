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
        { type: "text", role: "title", content: "Approve calendar.create?" },
        { type: "badge", label: "Waiting for your approval", status: "pending" },
        { type: "datetime", value: "2026-11-27T10:00:00+08:00", format: "datetime", label: "Start at" },
        { type: "datetime", value: "2026-11-28T02:00:00.000Z", format: "datetime", label: "Expires" },
      ]),
    );
    expect(JSON.stringify(en)).not.toContain("Expires 2026");
    const kv = nodes(en).find((n) => n.type === "key_value");
    expect(kv).toEqual({ type: "key_value", items: [{ label: "Title", value: "Call with Ana" }, { label: "Duration minutes", value: "30" }] });

    const zh = approvalCard({ ...row, status: "denied", reason: "not now" }, { now, locale: "zh-CN" });
    expect(zh.locale).toBe("zh-CN");
    expect(nodes(zh)).toEqual(
      expect.arrayContaining([
        { type: "text", role: "title", content: "是否批准 calendar.create？" },
        { type: "badge", label: "已拒绝：未执行", status: "warning" },
        { type: "text", role: "body", content: "原因：not now" },
      ]),
    );
    // Over, it has no expiry to show; the input's instant stays.
    expect(nodes(zh).filter((n) => n.type === "datetime")).toEqual([{ type: "datetime", value: "2026-11-27T10:00:00+08:00", format: "datetime", label: "Start at" }]);
  });
});
