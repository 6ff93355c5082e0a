import { EventType } from "@ag-ui/core";
import { describe, expect, it } from "vitest";
import { createEventSequenceGuard } from "../protocols/ag-ui/event-guard";
import type { AgUiEvent } from "../protocols/ag-ui/events";
import type { ApprovalRow } from "../approvals/repository";
import { RunnerFailure, type EmitExtras } from "../kernel/runs";
import { ResultStreamProcessor, type ResultEffects } from "./result-stream";

const RUN = "run-1";

function setup(effects: Partial<ResultEffects> = {}) {
  const events: AgUiEvent[] = [];
  const extrasOf = new Map<AgUiEvent, EmitExtras>();
  const warnings: string[] = [];
  // Every mapped event must also be a valid AG-UI sequence, as the engine checks it.
  const guard = createEventSequenceGuard({ threadId: "t", runId: "r" });
  guard.accept({ type: EventType.RUN_STARTED, threadId: "t", runId: "r" });
  const p = new ResultStreamProcessor(
    RUN,
    (e, extras) => {
      if (extras?.answersEarlierCall && e.type === EventType.TOOL_CALL_RESULT) guard.adoptToolCall(e.toolCallId);
      events.push(guard.accept(e));
      if (extras) extrasOf.set(e, extras);
    },
    {
      updateState: async () => {},
      createArtifact: async (d) => ({ artifact_id: "a1", mime_type: d.mime_type, size: 1, name: d.name ?? null }),
      requestAction: async () => ({ refused: { reason: "not_granted", message: "not allowed" } }),
      ...effects,
    },
    (detail) => warnings.push(detail),
  );
  const send = (type: string, data: unknown, sequence?: number, runId = RUN) => p.accept(JSON.stringify({ run_id: runId, type, data, sequence }));
  return { p, events, warnings, send, extrasOf };
}

/** The event types of one text message with a single delta, and of one tool call with its result. */
const ONE_TEXT = [EventType.TEXT_MESSAGE_START, EventType.TEXT_MESSAGE_CONTENT, EventType.TEXT_MESSAGE_END];
const ONE_TOOL_CALL = [EventType.TOOL_CALL_START, EventType.TOOL_CALL_ARGS, EventType.TOOL_CALL_END, EventType.TOOL_CALL_RESULT];

const texts = (events: AgUiEvent[]) => events.filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT).map((e) => (e as { delta: string }).delta);

describe("ResultStreamProcessor", () => {
  it("maps deltas and a completion to one streamed assistant message", async () => {
    const { p, events, send } = setup();
    send("message.delta", { chunk: { role: "assistant", content: "hel" } }, 0);
    send("message.delta", { chunk: { content: "lo" } }, 1);
    send("message.completed", { message: { role: "assistant", content: "hello!" } }, 2);
    send("run.completed", { usage: { input_tokens: 3, output_tokens: 2 } }, 3);
    expect(await p.finish()).toEqual({ usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 }, finishReason: undefined, awaiting: [] });
    expect(events.map((e) => e.type)).toEqual([
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
    ]);
    expect(texts(events).join("")).toBe("hello!");
    expect(p.records.every((r) => r.disposition === "applied")).toBe(true);
  });

  it("applies a duplicate sequence once and ignores unknown types with a warning", async () => {
    const { p, events, warnings, send } = setup();
    send("message.delta", { chunk: { content: "a" } }, 0);
    send("message.delta", { chunk: { content: "a" } }, 0);
    send("custom.thing", { x: 1 }, 1);
    send("run.completed", {}, 2);
    await p.finish();
    expect(texts(events)).toEqual(["a"]);
    expect(p.records.map((r) => r.disposition)).toEqual(["applied", "duplicate", "ignored", "applied"]);
    expect(warnings.some((w) => w.includes("unknown result type custom.thing"))).toBe(true);
  });

  it("rejects malformed lines, other runs' results, bad data and oversize lines without failing the run", async () => {
    const { p, events, send } = setup();
    p.accept("{not json");
    send("message.delta", { chunk: { content: "x" } }, 0, "another-run");
    send("message.delta", { chunk: { content: 42 } }, 1);
    send("state.updated", { scope: "galaxy", key: "k", value: 1 }, 2);
    p.accept(JSON.stringify({ run_id: RUN, type: "message.delta", data: { chunk: { content: "y".repeat(1_100_000) } }, sequence: 3 }));
    send("message.delta", { chunk: { content: "ok" } }, 4);
    send("run.completed", {}, 5);
    await p.finish();
    expect(texts(events)).toEqual(["ok"]);
    expect(p.records.map((r) => r.disposition)).toEqual(["rejected", "rejected", "rejected", "rejected", "rejected", "applied", "applied"]);
    expect(p.records[0]!.detail).toBe("not a JSON line");
    expect(p.records[4]!.detail).toMatch(/exceeds the 1048576-byte limit/);
  });

  it("accepts exactly one terminal result", async () => {
    const { p, send } = setup();
    send("run.completed", {}, 0);
    send("run.failed", { code: "late" }, 1);
    send("message.delta", { chunk: { content: "late" } }, 2);
    await expect(p.finish()).resolves.toBeDefined();
    expect(p.records.slice(1).map((r) => r.detail)).toEqual(["arrived after the terminal run.completed", "arrived after the terminal run.completed"]);
  });

  it("turns run.failed into a RunnerFailure with the runner's code", async () => {
    const { p, send } = setup();
    send("message.delta", { chunk: { content: "partial" } }, 0);
    send("run.failed", { code: "runner.error", message: "failed to call external agent", retryable: true }, 1);
    const err = await p.finish().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunnerFailure);
    expect(err).toMatchObject({ code: "runner.error", message: "failed to call external agent", retryable: true });
  });

  it("fails a stream that ends without a terminal result", async () => {
    const { p, send } = setup();
    send("message.delta", { chunk: { content: "cut" } }, 0);
    await expect(p.finish()).rejects.toMatchObject({ code: "runner.incomplete" });
  });

  it("maps tool calls to AG-UI tool events, starting one the runner only completed", async () => {
    const { p, events, send } = setup();
    send("message.delta", { chunk: { content: "Looking" } }, 0);
    send("tool.call.started", { tool_call_id: "c1", tool_name: "search", parameters: { q: "x" } }, 1);
    send("tool.call.completed", { tool_call_id: "c1", result: { hits: 1 } }, 2);
    send("tool.call.completed", { tool_call_id: "c2", tool_name: "lookup", error: "boom" }, 3);
    send("tool.call.started", { tool_call_id: "c1", tool_name: "search" }, 4);
    send("run.completed", {}, 5);
    await p.finish();
    expect(events.map((e) => e.type)).toEqual([...ONE_TEXT, ...ONE_TOOL_CALL, ...ONE_TOOL_CALL]);
    expect(events[6]).toMatchObject({ toolCallId: "c1", content: '{"hits":1}' });
    expect(events[10]).toMatchObject({ toolCallId: "c2", content: '{"error":"boom"}' });
    expect(p.records[4]).toMatchObject({ disposition: "rejected", detail: "tool call c1 was already started" });
  });

  it("runs state, artifact and action effects in order and records a refused one", async () => {
    const applied: string[] = [];
    const { p, events, send } = setup({
      updateState: async (d) => {
        if (d.scope === "binding") throw new Error("state scope binding is not granted to this binding");
        applied.push(`${d.scope}:${d.key}`);
      },
    });
    send("state.updated", { scope: "conversation", key: "external.session_id", value: "abc" }, 0);
    send("state.updated", { scope: "binding", key: "k", value: 1 }, 1);
    send("artifact.created", { name: "notes.txt", mime_type: "text/plain", text: "hi" }, 2);
    send("action.requested", { action: "message.edit", target: { message_id: "m" }, payload: { text: "x" } }, 3);
    send("run.completed", {}, 4);
    await p.finish();
    expect(applied).toEqual(["conversation:external.session_id"]);
    expect(p.records[1]).toMatchObject({ disposition: "rejected", detail: "state scope binding is not granted to this binding" });
    expect(events.find((e) => e.type === EventType.CUSTOM)).toMatchObject({ name: "artifact.created", value: { artifact_id: "a1" } });
    expect(p.records.find((r) => r.type === "action.refused")).toMatchObject({ disposition: "host", data: { action: "message.edit", reason: "not_granted", message: "not allowed" } });
    expect(p.records[3]).toMatchObject({ type: "action.requested", disposition: "rejected", detail: "not allowed" });
  });

  const output = { tool_name: "project_cli" as const, tool_call_id: "c1", tool_call_args: {}, status: "success" as const, result: { module: "memory", method: "read", data: {} }, error: null, ui_hints: null };
  const card = { version: "2.0", status: "success" };

  it("streams a host tool call between the runner's texts, with its card and tool message; the runner's own report of it adds nothing", async () => {
    const { p, events, send, extrasOf } = setup();
    send("message.delta", { chunk: { content: "Let me look" } }, 0);
    p.hostToolCall({ toolCallId: "c1", toolName: "project_cli", args: { module: "memory", method: "read", input: {} }, outcome: { toolResponseText: "{}", uiSchema: card, output } });
    send("tool.call.completed", { tool_call_id: "c1", tool_name: "project_cli", result: { ignored: true } }, 1);
    send("message.completed", { message: { content: "Found it" } }, 2);
    send("run.completed", {}, 3);
    expect((await p.finish()).awaiting).toEqual([]);
    expect(events.map((e) => e.type)).toEqual([...ONE_TEXT, ...ONE_TOOL_CALL, ...ONE_TEXT]);
    const start = events[3] as { parentMessageId?: string };
    expect(start.parentMessageId).toBe((events[0] as { messageId: string }).messageId);
    const result = events[6]!;
    expect(result).toMatchObject({ toolCallId: "c1", content: "{}", metadata: { ui_schema: card } });
    expect(extrasOf.get(result)?.messageMetadata).toMatchObject({ tool_name: "project_cli", tool_agent_output: output, parent_message_id: start.parentMessageId });
    expect(p.records.find((r) => r.type === "tool.call.host")).toMatchObject({ disposition: "host", data: { tool_call_id: "c1", status: "answered" } });
    expect(p.records.find((r) => r.type === "tool.call.completed")).toMatchObject({ disposition: "host", detail: "the host's tools/call streamed this call" });
  });

  it("leaves a call waiting for a person open and hands its approval to the run's end; a carried call answers an earlier run's", async () => {
    const { p, events, send, extrasOf } = setup();
    const row = { id: "a1", toolCallId: "c2", action: "memory.update" } as ApprovalRow;
    send("tool.call.started", { tool_call_id: "c2", tool_name: "project_cli", parameters: { module: "memory" } }, 0);
    p.hostToolCall({ toolCallId: "c2", toolName: "project_cli", args: {}, outcome: { toolResponseText: "pending", uiSchema: card, output: { ...output, status: "failure" } }, pending: row });
    send("tool.call.completed", { tool_call_id: "c2", error: "APPROVAL_PENDING" }, 1);
    p.hostToolCall({ toolCallId: "c0", toolName: "project_cli", args: {}, outcome: { toolResponseText: "done", uiSchema: card, output }, carried: { approvalId: "a0", parentMessageId: "m0" } });
    send("run.completed", {}, 2);
    const { awaiting } = await p.finish();
    expect(awaiting).toEqual([{ row, parentMessageId: expect.any(String) }]);
    expect(events.map((e) => e.type)).toEqual([EventType.TOOL_CALL_START, EventType.TOOL_CALL_ARGS, EventType.TOOL_CALL_END, EventType.TOOL_CALL_RESULT]);
    const carried = events[3]!;
    expect(carried).toMatchObject({ toolCallId: "c0" });
    expect(extrasOf.get(carried)).toMatchObject({ answersEarlierCall: true, messageMetadata: { approval_id: "a0", parent_message_id: "m0" } });
  });
});
