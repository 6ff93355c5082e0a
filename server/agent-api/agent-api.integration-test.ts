import { EventType } from "@ag-ui/core";
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { AppError } from "@/server/kernel/errors";
import { userMessageParts } from "@/server/protocols/ag-ui/run-input";
import { parseAgentRequest } from "@/server/protocols/agent-api/request";
import { StreamObjectSchema, type StreamObject } from "@/server/protocols/agent-api/response";
import { registerRunner } from "@/server/runs/runners/registry";
import type { Runner } from "@/server/kernel/runs";
import { createTestUser } from "@/test/helpers";
import { agentResponseResult, agentResponseStream, cancelAgentResponse, startAgentResponse } from "./service/agent-api";

// The Agent API service on the real engine and database, with a scripted runner in this
// process, so failures, tool calls, cancels and silences happen exactly when the test says.

const waiting = new Map<string, () => void>();

/** Acts on the user's text: "tool ...", "fail", or "slow <key>" (silent until released or cancelled). */
const scripted: Runner = {
  id: "test:agent-api-scripted",
  async run({ input, emit, signal }) {
    const { text } = userMessageParts(input);
    const id = randomUUID();
    if (text.startsWith("tool")) {
      emit({ type: EventType.TOOL_CALL_START, toolCallId: `call_${id}`, toolCallName: "project_cli" });
      emit({ type: EventType.TOOL_CALL_ARGS, toolCallId: `call_${id}`, delta: '{"command":"contacts.list"}' });
      emit({ type: EventType.TOOL_CALL_END, toolCallId: `call_${id}` });
      emit({ type: EventType.TOOL_CALL_RESULT, toolCallId: `call_${id}`, messageId: `tool_${id}`, content: '{"ok":true,"contacts":[]}', role: "tool" });
    }
    emit({ type: EventType.TEXT_MESSAGE_START, messageId: `msg_${id}`, role: "assistant" });
    emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: `msg_${id}`, delta: "Working" });
    if (text === "fail") throw new Error("provider said: secret-token-123 rejected");
    if (text.startsWith("slow")) {
      await new Promise<void>((resolve) => {
        waiting.set(text.slice(5), resolve);
        signal.addEventListener("abort", () => resolve(), { once: true });
      });
    }
    emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: `msg_${id}`, delta: " done." });
    emit({ type: EventType.TEXT_MESSAGE_END, messageId: `msg_${id}` });
    return { usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } };
  },
};

let userId: string;
beforeAll(async () => {
  registerRunner(scripted, { default: true });
  userId = (await createTestUser()).id;
});

async function start(text: string, extra: Record<string, unknown> = {}) {
  const parsed = parseAgentRequest(JSON.stringify({ input: [{ role: "user", content: [{ type: "text", text }] }], ...extra }));
  if (!parsed.ok) throw new Error(parsed.message);
  return (await startAgentResponse({ userId, request: parsed.request })).run;
}

async function collect(objects: AsyncIterable<StreamObject>, onObject?: (o: StreamObject) => void) {
  const seen: StreamObject[] = [];
  for await (const o of objects) {
    expect(StreamObjectSchema.safeParse(o).success, JSON.stringify(o)).toBe(true);
    seen.push(o);
    onObject?.(o);
  }
  expect(seen.map((o) => o.sequence_number)).toEqual(seen.map((_, i) => i));
  return seen;
}

describe("Agent API service on the run engine", () => {
  it("streams a tool call with the engine's ids and the tool output the thread keeps", async () => {
    const run = await start("tool please");
    const objects = await collect(agentResponseStream({ run, sessionId: run.threadId, signal: new AbortController().signal }));
    const last = objects.at(-1)!;
    expect(last).toMatchObject({ object: "response", status: "completed", usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 } });
    const output = last.object === "response" ? last.output : [];
    expect(output.map((m) => m.type)).toEqual(["function_call", "function_call_output", "message"]);
    const [call, result] = output;
    expect(call!.content[0]).toMatchObject({ type: "data", data: { call_id: call!.id, name: "project_cli", arguments: '{"command":"contacts.list"}' } });
    expect(result!.content[0]).toMatchObject({ type: "data", data: { call_id: call!.id, output: '{"ok":true,"contacts":[]}' } });
    const { rows } = await getPool().query("select role, message_id, content, metadata from messages where run_id = $1 and role = 'tool'", [run.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ message_id: result!.id, content: '{"ok":true,"contacts":[]}', metadata: { tool_call_id: call!.id } });
  });

  it("ends a failed run with response failed, a safe error, and nothing after it", async () => {
    const run = await start("fail");
    const objects = await collect(agentResponseStream({ run, sessionId: run.threadId, signal: new AbortController().signal }));
    expect(objects.filter((o) => o.object === "response" && !["created", "in_progress"].includes(o.status))).toHaveLength(1);
    expect(objects.at(-1)).toMatchObject({ object: "response", status: "failed", error: { code: "RUNNER_ERROR", message: expect.any(String) } });
    expect(JSON.stringify(objects)).not.toContain("secret-token-123");
    const result = await agentResponseResult({ run, sessionId: run.threadId, signal: new AbortController().signal });
    expect(result).toMatchObject({ status: "failed", error: { code: "RUNNER_ERROR" } });
    expect(result).not.toHaveProperty("sequence_number");
  });

  it("sends heartbeats in the sequence while the run is silent", async () => {
    const key = randomUUID();
    const run = await start(`slow ${key}`);
    const objects = await collect(agentResponseStream({ run, sessionId: run.threadId, signal: new AbortController().signal, heartbeatMs: 20 }), (o) => {
      if (o.object === "message" && o.type === "heartbeat") waiting.get(key)?.();
    });
    const kinds = objects.map((o) => (o.object === "message" && o.type === "heartbeat" ? "heartbeat" : o.object));
    const firstHeartbeat = kinds.indexOf("heartbeat");
    expect(firstHeartbeat).toBeGreaterThan(kinds.indexOf("content"));
    expect(objects.at(-1)).toMatchObject({ object: "response", status: "completed" });
    const last = objects.at(-1)!;
    expect(last.object === "response" && last.output.map((m) => m.type)).toEqual(["message"]);
  });

  it("cancels: the stream ends with response canceled, and cancelling again changes nothing", async () => {
    const run = await start(`slow ${randomUUID()}`);
    const objects = await collect(agentResponseStream({ run, sessionId: run.threadId, signal: new AbortController().signal }), (o) => {
      if (o.object === "content" && o.delta) void cancelAgentResponse({ userId, responseId: run.runId });
    });
    expect(objects.at(-1)).toMatchObject({ object: "response", status: "canceled", error: null, output: [{ type: "message", status: "completed" }] });
    const again = await cancelAgentResponse({ userId, responseId: run.runId });
    expect(again).toMatchObject({ object: "response", id: run.runId, session_id: run.threadId, status: "canceled", completed_at: expect.any(Number) });
  });

  it("refuses a second response on a busy session with CONFLICT, and another user's response with NOT_FOUND", async () => {
    const key = randomUUID();
    const run = await start(`slow ${key}`);
    const busy = start("hello", { session_id: run.threadId });
    await expect(busy).rejects.toBeInstanceOf(AppError);
    await expect(busy).rejects.toMatchObject({ code: "CONFLICT" });
    const stranger = (await createTestUser()).id;
    await expect(cancelAgentResponse({ userId: stranger, responseId: run.runId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    waiting.get(key)?.();
    expect(await agentResponseResult({ run, sessionId: run.threadId, signal: new AbortController().signal })).toMatchObject({ status: "completed" });
  });
});
