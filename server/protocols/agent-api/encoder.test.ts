import { EventType as E } from "@ag-ui/core";
import { describe, expect, it } from "vitest";
import { createEventSequenceGuard, type RunCloseOutcome } from "../ag-ui/event-guard";
import type { AgUiEvent } from "../ag-ui/events";
import { createAgentApiEncoder, type TokenCounts } from "./encoder";
import { StreamObjectSchema, type StreamObject } from "./response";

const THREAD_ID = "6f1c1a4e-5f0b-4a52-9c1e-2b1d6a1e9f00";
const RUN_ID = "response_1";
const CREATED_AT = 1_700_000_000;
const NOW_MS = 1_700_000_042_500;
const USAGE: TokenCounts = { inputTokens: 12, outputTokens: 5, totalTokens: 17 };

const started: AgUiEvent = { type: E.RUN_STARTED, threadId: THREAD_ID, runId: RUN_ID };
const textStart = (messageId: string): AgUiEvent => ({ type: E.TEXT_MESSAGE_START, messageId, role: "assistant" });
const textContent = (messageId: string, delta: string): AgUiEvent => ({ type: E.TEXT_MESSAGE_CONTENT, messageId, delta });
const textEnd = (messageId: string): AgUiEvent => ({ type: E.TEXT_MESSAGE_END, messageId });

// Runs the events through the engine's own guard first, so every test sequence is one the
// engine could really have logged, and closes the run the way the engine does.
function runEvents(events: AgUiEvent[], outcome: RunCloseOutcome): AgUiEvent[] {
  const guard = createEventSequenceGuard({ threadId: THREAD_ID, runId: RUN_ID, now: () => NOW_MS });
  for (const event of events) guard.accept(event);
  return [...events, ...guard.close(outcome)];
}

function encodeAll(events: AgUiEvent[], usage: TokenCounts | null = USAGE) {
  const encoder = createAgentApiEncoder({ responseId: RUN_ID, sessionId: THREAD_ID, createdAt: CREATED_AT, now: () => NOW_MS, newId: () => "hb" });
  const objects: StreamObject[] = [];
  for (const event of events) {
    const terminal = event.type === E.RUN_FINISHED || event.type === E.RUN_ERROR;
    objects.push(...encoder.encode(event, terminal ? { usage } : undefined));
  }
  return { encoder, objects };
}

// A short, readable label per object: "response:created", "message:in_progress", "content:delta".
const shape = (o: StreamObject) =>
  o.object === "content" ? `content:${o.delta ? "delta" : o.status}` : o.object === "message" ? `${o.type}:${o.status}` : `response:${o.status}`;

function expectWellFormed(objects: StreamObject[]) {
  expect(objects.map((o) => o.sequence_number)).toEqual(objects.map((_, i) => i));
  for (const o of objects) expect(StreamObjectSchema.safeParse(o).success, JSON.stringify(o)).toBe(true);
}

describe("Agent API encoder: a text answer", () => {
  const events = runEvents([started, textStart("msg_a"), textContent("msg_a", "Hello"), textContent("msg_a", ", "), textContent("msg_a", "world!"), textEnd("msg_a")], { type: "success" });

  it("streams the spec's order with gapless sequence numbers from 0", () => {
    const { objects, encoder } = encodeAll(events);
    expectWellFormed(objects);
    expect(objects.map(shape)).toEqual([
      "response:created",
      "response:in_progress",
      "message:created",
      "message:in_progress",
      "content:delta",
      "content:delta",
      "content:delta",
      "content:completed",
      "message:completed",
      "response:completed",
    ]);
    expect(encoder.done).toBe(true);
  });

  it("names every field the spec names, and the deltas add up to the completed text", () => {
    const { objects } = encodeAll(events);
    expect(objects[0]).toEqual({
      sequence_number: 0,
      object: "response",
      id: RUN_ID,
      status: "created",
      session_id: THREAD_ID,
      created_at: CREATED_AT,
      completed_at: null,
      output: [],
      usage: null,
      error: null,
    });
    expect(objects[2]).toEqual({ sequence_number: 2, object: "message", id: "msg_a", type: "message", role: "assistant", status: "created", content: [] });
    expect(objects[4]).toEqual({ sequence_number: 4, object: "content", type: "text", index: 0, delta: true, msg_id: "msg_a", status: "in_progress", text: "Hello" });
    const deltas = objects.map((o) => (o.object === "content" && o.type === "text" && o.delta ? o.text : ""));
    const completedText = { object: "content", type: "text", index: 0, delta: false, msg_id: "msg_a", status: "completed", text: "Hello, world!" } as const;
    expect(deltas.join("")).toBe(completedText.text);
    expect(objects[7]).toEqual({ sequence_number: 7, ...completedText });
    const message = { object: "message", id: "msg_a", type: "message", role: "assistant", status: "completed", content: [completedText] } as const;
    expect(objects[8]).toEqual({ sequence_number: 8, ...message });
    expect(objects[9]).toEqual({
      sequence_number: 9,
      object: "response",
      id: RUN_ID,
      status: "completed",
      session_id: THREAD_ID,
      created_at: CREATED_AT,
      completed_at: Math.floor(NOW_MS / 1000),
      output: [message],
      usage: { input_tokens: 12, output_tokens: 5, total_tokens: 17 },
      error: null,
    });
  });

  it("keeps emitted objects as they were when later events change the response", () => {
    const { objects } = encodeAll(events);
    expect(objects[1]).toMatchObject({ status: "in_progress", output: [], completed_at: null });
  });

  it("answers null usage when the run reported none", () => {
    expect(encodeAll(events, null).objects.at(-1)).toMatchObject({ status: "completed", usage: null });
  });
});

describe("Agent API encoder: tool calls", () => {
  const events = runEvents(
    [
      started,
      { type: E.TOOL_CALL_START, toolCallId: "call_1", toolCallName: "project_cli" },
      { type: E.TOOL_CALL_ARGS, toolCallId: "call_1", delta: '{"command":' },
      { type: E.TOOL_CALL_ARGS, toolCallId: "call_1", delta: '"calendar.list"}' },
      { type: E.TOOL_CALL_END, toolCallId: "call_1" },
      { type: E.TOOL_CALL_RESULT, toolCallId: "call_1", messageId: "tool_msg_1", content: '{"ok":true,"data":[]}', role: "tool" },
      textStart("msg_b"),
      textContent("msg_b", "Nothing today."),
      textEnd("msg_b"),
    ],
    { type: "success" },
  );

  it("streams a function_call and a function_call_output message with the AG-UI ids", () => {
    const { objects } = encodeAll(events);
    expectWellFormed(objects);
    expect(objects.map(shape)).toEqual([
      "response:created",
      "response:in_progress",
      "function_call:created",
      "function_call:in_progress",
      "content:completed",
      "function_call:completed",
      "function_call_output:created",
      "function_call_output:in_progress",
      "content:completed",
      "function_call_output:completed",
      "message:created",
      "message:in_progress",
      "content:delta",
      "content:completed",
      "message:completed",
      "response:completed",
    ]);
    const call = { call_id: "call_1", name: "project_cli", arguments: '{"command":"calendar.list"}' };
    expect(objects[4]).toEqual({ sequence_number: 4, object: "content", type: "data", index: 0, delta: false, msg_id: "call_1", status: "completed", data: call });
    expect(objects[5]).toMatchObject({ object: "message", id: "call_1", type: "function_call", role: "assistant", content: [{ type: "data", data: call }] });
    const output = { call_id: "call_1", name: "project_cli", output: '{"ok":true,"data":[]}' };
    expect(objects[9]).toMatchObject({ object: "message", id: "tool_msg_1", type: "function_call_output", role: "tool", content: [{ type: "data", data: output }] });
  });

  it("lists every completed message in the response output, in order", () => {
    const last = encodeAll(events).objects.at(-1);
    expect(last?.object === "response" && last.output.map((m) => [m.type, m.id])).toEqual([
      ["function_call", "call_1"],
      ["function_call_output", "tool_msg_1"],
      ["message", "msg_b"],
    ]);
  });

  it("serializes a tool result given as content parts", () => {
    const parts = runEvents(
      [
        started,
        { type: E.TOOL_CALL_START, toolCallId: "c2", toolCallName: "lookup" },
        { type: E.TOOL_CALL_END, toolCallId: "c2" },
        { type: E.TOOL_CALL_RESULT, toolCallId: "c2", messageId: "t2", content: [{ type: "text", text: "found" }] },
      ],
      { type: "success" },
    );
    const output = encodeAll(parts).objects.find((o) => o.object === "content" && o.msg_id === "t2");
    expect(output).toMatchObject({ data: { call_id: "c2", name: "lookup", output: '[{"type":"text","text":"found"}]' } });
  });
});

describe("Agent API encoder: failure, cancel and the end of the stream", () => {
  it("ends a failed run with response failed and its error, keeping the partial answer", () => {
    const events = runEvents([started, textStart("msg_c"), textContent("msg_c", "partial")], { type: "error", code: "UPSTREAM_ERROR", message: "model unreachable" });
    const { objects, encoder } = encodeAll(events);
    expectWellFormed(objects);
    expect(objects.map(shape).slice(-4)).toEqual(["content:completed", "message:completed", "error:completed", "response:failed"]);
    // The spec's error message says why, just before the end; it is not part of the output.
    expect(objects.at(-2)).toMatchObject({ object: "message", type: "error", status: "completed", code: "UPSTREAM_ERROR", message: "model unreachable" });
    expect(objects.at(-1)).toMatchObject({
      status: "failed",
      error: { code: "UPSTREAM_ERROR", message: "model unreachable" },
      completed_at: Math.floor(NOW_MS / 1000),
      output: [{ id: "msg_c", status: "completed", content: [{ text: "partial" }] }],
    });
    // Nothing follows the terminal object, whatever else arrives.
    expect(encoder.encode(textStart("late"))).toEqual([]);
    expect(encoder.encode({ type: E.RUN_FINISHED, threadId: THREAD_ID, runId: RUN_ID })).toEqual([]);
  });

  it("gives a failure without a code the engine's generic code", () => {
    const { objects } = encodeAll([started, { type: E.RUN_ERROR, message: "The agent failed while running; see the run log" }]);
    expect(objects.at(-1)).toMatchObject({ status: "failed", error: { code: "RUNNER_ERROR", message: "The agent failed while running; see the run log" } });
  });

  it("opens the response before failing a run that never started", () => {
    const { objects } = encodeAll([{ type: E.RUN_ERROR, message: "could not start", code: "DEADLINE_EXCEEDED" }]);
    expectWellFormed(objects);
    expect(objects.map(shape)).toEqual(["response:created", "response:in_progress", "error:completed", "response:failed"]);
  });

  it("ends a run refused after its stream began as rejected, with the refusal as its error", () => {
    for (const code of ["RATE_LIMITED", "FORBIDDEN", "policy.refused", "tool.permission_denied"]) {
      const { objects } = encodeAll(runEvents([started, textStart("msg_r"), textContent("msg_r", "Let me")], { type: "error", code, message: "not allowed" }));
      expectWellFormed(objects);
      expect(objects.at(-2)).toMatchObject({ type: "error", code, message: "not allowed" });
      expect(objects.at(-1)).toMatchObject({ object: "response", status: "rejected", error: { code, message: "not allowed" } });
    }
    const { objects } = encodeAll(runEvents([started], { type: "error", code: "runner.unreachable", message: "down" }));
    expect(objects.at(-1)).toMatchObject({ status: "failed" });
  });

  it("ends a cancelled run with response canceled", () => {
    const events = runEvents([started, textStart("msg_d"), textContent("msg_d", "half an ans")], { type: "cancelled" });
    const { objects } = encodeAll(events);
    expectWellFormed(objects);
    expect(objects.at(-1)).toMatchObject({ object: "response", status: "canceled", error: null, output: [{ id: "msg_d", content: [{ text: "half an ans" }] }] });
  });

  it("completes a message that ended without content with no content part", () => {
    const { objects } = encodeAll(runEvents([started, textStart("msg_e"), textEnd("msg_e")], { type: "success" }));
    expect(objects.map(shape)).toEqual(["response:created", "response:in_progress", "message:created", "message:in_progress", "message:completed", "response:completed"]);
    expect(objects[4]).toMatchObject({ content: [] });
  });
});

describe("Agent API encoder: heartbeats and events without an Agent API form", () => {
  it("numbers heartbeats in the same sequence and leaves them out of the output", () => {
    const encoder = createAgentApiEncoder({ responseId: RUN_ID, sessionId: THREAD_ID, createdAt: CREATED_AT, newId: () => "1" });
    const objects: StreamObject[] = [...encoder.encode(started), encoder.heartbeat(), ...encoder.encode(textStart("m")), encoder.heartbeat()];
    expectWellFormed(objects);
    expect(objects[2]).toEqual({ sequence_number: 2, object: "message", id: "msg_1", type: "heartbeat", status: "completed" });
    expect(encoder.response().output).toEqual([]);
  });

  it("streams the model's reasoning as a reasoning message with text content, and skips steps and state without a sequence number", () => {
    const events = runEvents(
      [
        started,
        { type: E.STATE_SNAPSHOT, snapshot: { a: 1 } },
        { type: E.STEP_STARTED, stepName: "plan" },
        { type: E.REASONING_START, messageId: "r1" },
        { type: E.REASONING_MESSAGE_START, messageId: "r1m", role: "reasoning" },
        { type: E.REASONING_MESSAGE_CONTENT, messageId: "r1m", delta: "think" },
        { type: E.REASONING_MESSAGE_CONTENT, messageId: "r1m", delta: "ing" },
        { type: E.REASONING_MESSAGE_END, messageId: "r1m" },
        { type: E.REASONING_END, messageId: "r1" },
        { type: E.STEP_FINISHED, stepName: "plan" },
        textStart("msg_f"),
        textContent("msg_f", "ok"),
        textEnd("msg_f"),
      ],
      { type: "success" },
    );
    const { objects, encoder } = encodeAll(events);
    expectWellFormed(objects);
    const reasoning = objects.filter((o) => ("msg_id" in o ? o.msg_id : o.id) === "r1m");
    expect(reasoning.map((o) => [o.object, o.status, "type" in o ? o.type : null])).toEqual([
      ["message", "created", "reasoning"],
      ["message", "in_progress", "reasoning"],
      ["content", "in_progress", "text"],
      ["content", "in_progress", "text"],
      ["content", "completed", "text"],
      ["message", "completed", "reasoning"],
    ]);
    expect(encoder.response().output.map((m) => [m.type, m.content.map((c) => (c.type === "text" ? c.text : ""))])).toEqual([
      ["reasoning", ["thinking"]],
      ["message", ["ok"]],
    ]);
  });
});
