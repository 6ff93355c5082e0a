import { describe, expect, it } from "vitest";
import { createEventSequenceGuard } from "../../protocols/ag-ui/event-guard";
import type { AgUiEvent } from "../../protocols/ag-ui/events";
import type { EmitExtras } from "../../kernel/runs";
import { AgUiRelay, summedUsage } from "./relay";

// The relay in front of the engine's guard, fed what an AG-UI agent may stream.
function relayed() {
  const guard = createEventSequenceGuard({ threadId: "t", runId: "r" });
  guard.accept({ type: "RUN_STARTED", threadId: "t", runId: "r" } as AgUiEvent);
  const out: { event: AgUiEvent; extras?: EmitExtras }[] = [];
  const relay = new AgUiRelay((event, extras) => out.push({ event: guard.accept(event), extras }));
  return { relay, out, types: () => out.map((o) => o.event.type) };
}

describe("AgUiRelay", () => {
  it("relays the agent's run without its lifecycle, snapshot or empty deltas, and ends on RUN_FINISHED", () => {
    const { relay, types } = relayed();
    for (const e of [
      { type: "RUN_STARTED", threadId: "agent-thread", runId: "agent-run" },
      { type: "MESSAGES_SNAPSHOT", messages: [] },
      { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "hi", providerExtra: 1 },
      { type: "TEXT_MESSAGE_END", messageId: "m1" },
      { type: "RUN_FINISHED", threadId: "agent-thread", runId: "agent-run", result: { ok: true } },
      { type: "TEXT_MESSAGE_START", messageId: "late", role: "assistant" },
    ]) relay.accept(e);
    expect(types()).toEqual(["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END"]);
    expect(relay.end).toEqual({ kind: "finished", result: { ok: true } });
  });

  it("gives a tool result the call's name, arguments and parent for the thread", () => {
    const { relay, out } = relayed();
    relay.accept({ type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "get_weather", parentMessageId: "a1" });
    relay.accept({ type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: '{"city":' });
    relay.accept({ type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: '"Paris"}' });
    relay.accept({ type: "TOOL_CALL_END", toolCallId: "c1" });
    relay.accept({ type: "TOOL_CALL_RESULT", messageId: "t1", toolCallId: "c1", content: "sunny" });
    expect(out.at(-1)?.extras?.messageMetadata).toEqual({ tool_name: "get_weather", tool_call_args: { city: "Paris" }, parent_message_id: "a1" });
    expect(relay.end).toBeNull();
  });

  it("ends on an interrupt outcome with the agent's interrupts, for the run's approvals", () => {
    const { relay } = relayed();
    const interrupts = [{ id: "i1", reason: "tool_approval", toolCallId: "c1", message: "Go?" }];
    relay.accept({ type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "send", parentMessageId: "a1" });
    relay.accept({ type: "TOOL_CALL_END", toolCallId: "c1" });
    relay.accept({ type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "interrupt", interrupts }, usage: [{ inputTokens: 3 }] });
    expect(relay.end).toEqual({ kind: "interrupted", interrupts });
    expect(relay.usage).toEqual({ inputTokens: 3 });
    expect(relay.callOf("c1")).toEqual({ name: "send", args: {}, parentMessageId: "a1" });
  });

  it("takes the agent's answer to a call an earlier run left on an interrupt as that call's result", () => {
    const guard = createEventSequenceGuard({ threadId: "t", runId: "r2" });
    guard.accept({ type: "RUN_STARTED", threadId: "t", runId: "r2" } as AgUiEvent);
    const out: { event: AgUiEvent; extras?: EmitExtras }[] = [];
    const relay = new AgUiRelay(
      (event, extras) => {
        if (extras?.answersEarlierCall && event.type === "TOOL_CALL_RESULT") guard.adoptToolCall(event.toolCallId);
        out.push({ event: guard.accept(event), extras });
      },
      new Map([["c1", { name: "send", args: { to: "ana" }, parentMessageId: "a1" }]]),
    );
    relay.accept({ type: "TOOL_CALL_RESULT", messageId: "t1", toolCallId: "c1", content: "sent" });
    expect(out[0]!.extras).toEqual({ answersEarlierCall: true, messageMetadata: { tool_name: "send", tool_call_args: { to: "ana" }, parent_message_id: "a1" } });
    expect(relay.end).toBeNull();
  });

  it.each([
    ["a malformed event", [{ type: "TEXT_MESSAGE_CONTENT", messageId: "m1" }], "agent.malformed_event"],
    ["an event out of sequence", [{ type: "TEXT_MESSAGE_END", messageId: "never-started" }], "agent.invalid_sequence"],
    ["the agent's RUN_ERROR", [{ type: "RUN_ERROR", code: "boom", message: "it broke" }], "agent.run_error"],
  ])("fails the run on %s", (_what, events, code) => {
    const { relay } = relayed();
    for (const e of events) relay.accept(e);
    expect(relay.end).toMatchObject({ kind: "failed", failure: { code } });
  });
});

describe("summedUsage", () => {
  it("sums the agent's per-model usage and leaves out what nobody reported", () => {
    expect(summedUsage([{ inputTokens: 10, outputTokens: 2 }, { inputTokens: 5, outputTokens: 1, reasoningTokens: 3 }])).toEqual({ inputTokens: 15, outputTokens: 3, reasoningTokens: 3 });
    expect(summedUsage([])).toBeUndefined();
    expect(summedUsage(undefined)).toBeUndefined();
  });
});
