import { HttpAgent } from "@ag-ui/client";
import { EventType as E } from "@ag-ui/core";
import { describe, expect, it } from "vitest";
import { createEventSequenceGuard } from "./event-guard";
import type { AgUiEvent } from "./events";
import { parseRunAgentInput, userMessageParts, type ParseRunAgentInputResult } from "./run-input";
import { SSE_RESPONSE_HEADERS, encodeSseFrame, serializeEvent, sseComment } from "./sse";

const IMAGE_URL = "https://storage.example.com/agent-inputs/user-123/image.png?signature=xxx";
const UI_SCHEMA = { version: "2.0", locale: "en", status: "success", theme: "default", root: { type: "text", content: "Event created", role: "title" } };

// Plays the server side of POST /api/v1/agent/runs with this module's pieces only: parse
// the body the official client sends, run every event through the guard, frame it as SSE.
function fakeServer(received: ParseRunAgentInputResult[]) {
  return async (_url: string, init: RequestInit): Promise<Response> => {
    const parsed = parseRunAgentInput(String(init.body));
    received.push(parsed);
    if (!parsed.ok) return Response.json({ error: parsed.message }, { status: parsed.status });
    const { threadId, runId } = parsed.input;
    const guard = createEventSequenceGuard({ threadId, runId });
    const produced: AgUiEvent[] = [
      { type: E.RUN_STARTED, threadId, runId },
      { type: E.TEXT_MESSAGE_START, messageId: "m1", role: "assistant" },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "I see a calendar. " },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "Creating the event." },
      { type: E.TOOL_CALL_START, toolCallId: "c1", toolCallName: "calendar_create", parentMessageId: "m1" },
      { type: E.TOOL_CALL_ARGS, toolCallId: "c1", delta: '{"title":"Standup"}' },
      { type: E.TOOL_CALL_END, toolCallId: "c1" },
      { type: E.TEXT_MESSAGE_END, messageId: "m1" },
      { type: E.TOOL_CALL_RESULT, toolCallId: "c1", messageId: "t1", content: '{"ok":true}', role: "tool", metadata: { ui_schema: UI_SCHEMA } },
    ];
    const events = [...produced.map((event) => guard.accept(event)), ...guard.close({ type: "success" })];
    const wire = sseComment("connected") + events.map((event, index) => encodeSseFrame(index + 1, serializeEvent(event))).join("");
    return new Response(wire, { headers: SSE_RESPONSE_HEADERS });
  };
}

describe("the official @ag-ui/client HttpAgent against this module", () => {
  it("sends an input we accept, with its image part, and reads our stream into messages", async () => {
    const received: ParseRunAgentInputResult[] = [];
    const agent = new HttpAgent({ url: "http://dispatch.test/api/v1/agent/runs", fetch: fakeServer(received) });
    agent.setMessages([
      {
        id: "u1",
        role: "user",
        content: [
          { type: "text", text: "What is in this picture?" },
          { type: "image", source: { type: "url", value: IMAGE_URL, mimeType: "image/png" } },
        ],
      },
    ]);

    const { newMessages } = await agent.runAgent();

    const [first] = received;
    expect(first?.ok).toBe(true);
    if (!first?.ok) return;
    expect(first.input.threadId).toBe(agent.threadId);
    expect(first.input.protocolVersion).toBe("1.0");
    expect(userMessageParts(first.input)).toEqual({ messageId: "u1", text: "What is in this picture?", images: [{ url: IMAGE_URL, mimeType: "image/png" }], fromUser: true });

    expect(newMessages).toEqual([
      expect.objectContaining({
        id: "m1",
        role: "assistant",
        content: "I see a calendar. Creating the event.",
        toolCalls: [expect.objectContaining({ id: "c1", type: "function", function: { name: "calendar_create", arguments: '{"title":"Standup"}' } })],
      }),
      expect.objectContaining({ id: "t1", role: "tool", toolCallId: "c1", content: '{"ok":true}', metadata: { ui_schema: UI_SCHEMA } }),
    ]);
  });

  it("gets our 400 when it sends an inline image", async () => {
    const received: ParseRunAgentInputResult[] = [];
    const agent = new HttpAgent({ url: "http://dispatch.test/api/v1/agent/runs", fetch: fakeServer(received) });
    agent.setMessages([{ id: "u1", role: "user", content: [{ type: "image", source: { type: "data", value: "iVBORw0KGgo=", mimeType: "image/png" } }] }]);
    const consoleError = console.error;
    console.error = () => {};
    try {
      await expect(agent.runAgent()).rejects.toThrow(/HTTP 400: .*binary content data is not allowed/);
    } finally {
      console.error = consoleError;
    }
    expect(received[0]).toEqual({ ok: false, status: 400, message: "binary content data is not allowed", field: "messages[0].content[0].source.type" });
  });
});
