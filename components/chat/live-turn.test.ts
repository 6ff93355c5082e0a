import { EventType, type BaseEvent } from "@ag-ui/core";
import { describe, expect, it } from "vitest";
import { applyRunEvent, failTurn, isTurnOpen, newTurn, resetTurn, type LiveTurn } from "./live-turn";

const card = { version: "2.0", locale: "en-US", status: "info", theme: "default", root: { type: "text", content: "Tomorrow", role: "title" } };

function play(events: BaseEvent[], turn: LiveTurn = newTurn({ key: "k", runId: "run-1", user: { id: "m", text: "hi", images: [] } })): LiveTurn {
  return events.reduce(applyRunEvent, turn);
}

const started = { type: EventType.RUN_STARTED, threadId: "t", runId: "run-1" } as BaseEvent;

describe("live turn", () => {
  it("streams text as deltas arrive and closes it on TEXT_MESSAGE_END", () => {
    const streaming = play([
      started,
      { type: EventType.TEXT_MESSAGE_START, messageId: "a", role: "assistant" } as BaseEvent,
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "a", delta: "Hello " } as BaseEvent,
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "a", delta: "there" } as BaseEvent,
    ]);
    expect(streaming.status).toBe("running");
    expect(streaming.items).toEqual([{ kind: "text", id: "a", text: "Hello there", streaming: true }]);
    const done = play([{ type: EventType.TEXT_MESSAGE_END, messageId: "a" } as BaseEvent, { type: EventType.RUN_FINISHED, threadId: "t", runId: "run-1" } as BaseEvent], streaming);
    expect(done.items[0]).toMatchObject({ streaming: false });
    expect(done.status).toBe("completed");
    expect(isTurnOpen(done)).toBe(false);
  });

  it("shows the model's thinking before the answer, timed by its events, so a replay reads the same", () => {
    const thinking = [
      started,
      { type: EventType.REASONING_START, messageId: "r", timestamp: 1_000 } as BaseEvent,
      { type: EventType.REASONING_MESSAGE_START, messageId: "r", role: "reasoning", timestamp: 1_000 } as BaseEvent,
      { type: EventType.REASONING_MESSAGE_CONTENT, messageId: "r", delta: "Check the " } as BaseEvent,
      { type: EventType.REASONING_MESSAGE_CONTENT, messageId: "r", delta: "calendar." } as BaseEvent,
    ];
    expect(play(thinking).items).toEqual([{ kind: "reasoning", id: "r", text: "Check the calendar.", streaming: true, startedAt: 1_000, durationMs: null }]);
    const answered = play([
      ...thinking,
      { type: EventType.REASONING_MESSAGE_END, messageId: "r", timestamp: 13_400 } as BaseEvent,
      { type: EventType.REASONING_END, messageId: "r", timestamp: 13_400 } as BaseEvent,
      { type: EventType.TEXT_MESSAGE_START, messageId: "a", role: "assistant" } as BaseEvent,
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "a", delta: "Free." } as BaseEvent,
    ]);
    expect(answered.items.map((item) => item.kind)).toEqual(["reasoning", "text"]);
    expect(answered.items[0]).toMatchObject({ streaming: false, durationMs: 12_400 });
    // Stopped mid-thought: the thought stays, no longer streaming.
    const stopped = play([...thinking, { type: EventType.RUN_FINISHED, threadId: "t", runId: "run-1", outcome: { type: "cancelled" } } as BaseEvent]);
    expect(stopped.items[0]).toMatchObject({ kind: "reasoning", streaming: false, text: "Check the calendar." });
  });

  it("replaces a message's text when its runner edits it (message.edited), leaving other messages alone", () => {
    const turn = play([
      started,
      { type: EventType.TEXT_MESSAGE_START, messageId: "a", role: "assistant" } as BaseEvent,
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "a", delta: "Working on it" } as BaseEvent,
      { type: EventType.TEXT_MESSAGE_END, messageId: "a" } as BaseEvent,
      { type: EventType.CUSTOM, name: "message.edited", value: { messageId: "a", content: "Done: 3 rooms booked" } } as BaseEvent,
      { type: EventType.CUSTOM, name: "message.edited", value: { messageId: "elsewhere", content: "x" } } as BaseEvent,
    ]);
    expect(turn.items).toEqual([{ kind: "text", id: "a", text: "Done: 3 rooms booked", streaming: false }]);
  });

  it("shows a tool call running, then its card from TOOL_CALL_RESULT metadata.ui_schema", () => {
    const running = play([started, { type: EventType.TOOL_CALL_START, toolCallId: "c1", toolCallName: "project_cli" } as BaseEvent]);
    expect(running.items).toEqual([{ kind: "tool", id: "c1", name: "project_cli", status: "running", result: null }]);
    const done = play(
      [
        { type: EventType.TOOL_CALL_ARGS, toolCallId: "c1", delta: "{}" } as BaseEvent,
        { type: EventType.TOOL_CALL_END, toolCallId: "c1" } as BaseEvent,
        { type: EventType.TOOL_CALL_RESULT, toolCallId: "c1", messageId: "tm", content: '{"ok":true}', metadata: { ui_schema: card } } as BaseEvent,
      ],
      running,
    );
    expect(done.items).toEqual([{ kind: "tool", id: "c1", name: "project_cli", status: "done", result: { content: '{"ok":true}', uiSchema: card } }]);
  });

  it("reads what a project_cli call runs from its arguments once they are complete", () => {
    const turn = play([
      started,
      { type: EventType.TOOL_CALL_START, toolCallId: "c1", toolCallName: "project_cli" } as BaseEvent,
      { type: EventType.TOOL_CALL_ARGS, toolCallId: "c1", delta: '{"module":"tracker","met' } as BaseEvent,
      { type: EventType.TOOL_CALL_ARGS, toolCallId: "c1", delta: 'hod":"search_tickets","input":{}}' } as BaseEvent,
    ]);
    expect(turn.items[0]).toMatchObject({ status: "running" });
    expect(turn.items[0]).not.toHaveProperty("target");
    const ended = play([{ type: EventType.TOOL_CALL_END, toolCallId: "c1" } as BaseEvent], turn);
    expect(ended.items).toEqual([{ kind: "tool", id: "c1", name: "project_cli", status: "running", result: null, target: { module: "tracker", method: "search_tickets" } }]);
  });

  it("keeps text and tool calls in arrival order", () => {
    const turn = play([
      started,
      { type: EventType.TOOL_CALL_START, toolCallId: "c1", toolCallName: "lookup" } as BaseEvent,
      { type: EventType.TOOL_CALL_RESULT, toolCallId: "c1", messageId: "tm", content: "x" } as BaseEvent,
      { type: EventType.TEXT_MESSAGE_START, messageId: "a" } as BaseEvent,
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "a", delta: "Done." } as BaseEvent,
    ]);
    expect(turn.items.map((i) => `${i.kind}:${i.id}`)).toEqual(["tool:c1", "text:a"]);
    expect(turn.items[0]).toMatchObject({ result: { uiSchema: null } });
  });

  it("ends as cancelled on RUN_FINISHED with a cancelled outcome, stopping what was open", () => {
    const turn = play([
      started,
      { type: EventType.TOOL_CALL_START, toolCallId: "c1", toolCallName: "slow" } as BaseEvent,
      { type: EventType.TOOL_CALL_END, toolCallId: "c1" } as BaseEvent,
      { type: EventType.RUN_FINISHED, threadId: "t", runId: "run-1", outcome: { type: "cancelled" } } as BaseEvent,
    ]);
    expect(turn.status).toBe("cancelled");
    expect(turn.items[0]).toMatchObject({ status: "stopped" });
  });

  it("fails with a kind of error for the RUN_ERROR code, not the server's message", () => {
    const turn = play([started, { type: EventType.RUN_ERROR, message: "The model is unavailable", code: "UPSTREAM_ERROR" } as BaseEvent]);
    expect(turn.status).toBe("failed");
    expect(turn.error).toEqual({ kind: "modelUnavailable" });
  });

  it("rebuilds the same view when a run is replayed from the start", () => {
    const events = [
      started,
      { type: EventType.TEXT_MESSAGE_START, messageId: "a", role: "assistant" } as BaseEvent,
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "a", delta: "Once" } as BaseEvent,
    ];
    const live = play(events);
    const replayed = play(events, resetTurn(failTurn(live, { kind: "closed" })));
    expect(replayed.items).toEqual(live.items);
    expect(replayed.error).toBeNull();
    expect(replayed.status).toBe("running");
  });
});
