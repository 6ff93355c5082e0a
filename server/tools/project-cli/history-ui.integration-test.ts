import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { appendMessage, createThread } from "@/test/thread-fixtures";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { runProjectCli } from "./tool";

describe("a tool card in /history", () => {
  it("is byte-identical to the uiSchema compiled when the tool ran", async () => {
    const user = await createTestUser();
    const threadId = randomUUID();
    const calls = [
      { module: "calendar", method: "create", input: { title: "Dentist", start_at: "2026-04-21T09:00:00+08:00", duration_minutes: 30 } },
      { module: "memory", method: "update", input: { key: "dentist", value: "Dr. Lima" } },
      { module: "calendar", method: "delete", input: { event_id: randomUUID() } },
    ];
    const fresh = [];
    for (const [i, args] of calls.entries()) {
      const { output, toolResponseText, uiSchema } = await runProjectCli({ userId: user.id, runId: randomUUID(), toolCallId: `call_${i}`, args, timeZone: "Asia/Shanghai" });
      expect(uiSchema).not.toBeNull();
      await createThread({ id: threadId, userId: user.id, title: "tools" });
      await appendMessage({ threadId, role: "tool", messageId: `tool-${i}`, runId: null, content: toolResponseText, metadata: { tool_agent_output: output } });
      fresh.push({ content: toolResponseText, uiSchema: JSON.stringify(uiSchema) });
    }
    const res = await fetch(`${baseUrl()}/api/v1/agent/history?threadId=${threadId}`, { headers: bearer(user.apiKey) });
    expect(res.status).toBe(200);
    const history = (await res.json()) as { messages: { role: string; content: string; uiSchema: unknown }[] };
    expect(history.messages.map((m) => ({ content: m.content, uiSchema: JSON.stringify(m.uiSchema) }))).toEqual(fresh);
    expect(history.messages.every((m) => m.role === "tool")).toBe(true);
  });
});
