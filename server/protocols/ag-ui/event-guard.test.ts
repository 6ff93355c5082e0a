import { verifyEvents } from "@ag-ui/client";
import { EventType as E } from "@ag-ui/core";
import { EventSchema } from "@ag-ui/core/schemas";
import { from, lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { EventSequenceError, createEventSequenceGuard } from "./event-guard";
import type { AgUiEvent } from "./events";

const THREAD_ID = "550e8400-e29b-41d4-a716-446655440000";
const RUN_ID = "run-001";
const NOW = 1_700_000_000_000;

// The official client's own sequence verifier, as HttpAgent runs it on every stream.
const verify = (events: AgUiEvent[]) => lastValueFrom(verifyEvents()(from(events)).pipe(toArray()));
const expectSchemaValid = (events: AgUiEvent[]) => {
  for (const event of events) expect(EventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
};
const newGuard = () => createEventSequenceGuard({ threadId: THREAD_ID, runId: RUN_ID, now: () => NOW });
const acceptAll = (events: AgUiEvent[]) => {
  const guard = newGuard();
  for (const event of events) guard.accept(event);
  return guard;
};

const runStarted: AgUiEvent = { type: E.RUN_STARTED, threadId: THREAD_ID, runId: RUN_ID };
const runFinished: AgUiEvent = { type: E.RUN_FINISHED, threadId: THREAD_ID, runId: RUN_ID };
const textStart = (messageId: string): AgUiEvent => ({ type: E.TEXT_MESSAGE_START, messageId, role: "assistant" });
const textContent = (messageId: string, delta: string): AgUiEvent => ({ type: E.TEXT_MESSAGE_CONTENT, messageId, delta });
const textEnd = (messageId: string): AgUiEvent => ({ type: E.TEXT_MESSAGE_END, messageId });
const toolStart = (toolCallId: string, parentMessageId?: string): AgUiEvent =>
  parentMessageId === undefined
    ? { type: E.TOOL_CALL_START, toolCallId, toolCallName: "calendar_create" }
    : { type: E.TOOL_CALL_START, toolCallId, toolCallName: "calendar_create", parentMessageId };
const toolArgs = (toolCallId: string, delta: string): AgUiEvent => ({ type: E.TOOL_CALL_ARGS, toolCallId, delta });
const toolEnd = (toolCallId: string): AgUiEvent => ({ type: E.TOOL_CALL_END, toolCallId });
const toolResult = (toolCallId: string, messageId: string): AgUiEvent => ({
  type: E.TOOL_CALL_RESULT,
  toolCallId,
  messageId,
  content: '{"ok":true}',
  role: "tool",
  metadata: { ui_schema: { version: "2.0", root: { type: "text", content: "done" } } },
});
const stepStart = (stepName: string): AgUiEvent => ({ type: E.STEP_STARTED, stepName });
const stepEnd = (stepName: string): AgUiEvent => ({ type: E.STEP_FINISHED, stepName });

const completeRun: AgUiEvent[] = [
  { ...runStarted, timestamp: NOW },
  stepStart("step-1"),
  textStart("m1"),
  textContent("m1", "Creating "),
  textContent("m1", "the event."),
  toolStart("c1", "m1"),
  toolArgs("c1", '{"title":'),
  toolArgs("c1", '"Standup"}'),
  toolEnd("c1"),
  textEnd("m1"),
  toolResult("c1", "tool-msg-1"),
  { type: E.STATE_SNAPSHOT, snapshot: { events: 1 } },
  { type: E.REASONING_START, messageId: "r1" },
  { type: E.REASONING_MESSAGE_START, messageId: "r1", role: "reasoning" },
  { type: E.REASONING_MESSAGE_CONTENT, messageId: "r1", delta: "done" },
  { type: E.REASONING_MESSAGE_END, messageId: "r1" },
  { type: E.REASONING_END, messageId: "r1" },
  { type: E.ACTIVITY_SNAPSHOT, messageId: "act-1", activityType: "progress", content: { percent: 50 } },
  { type: E.ACTIVITY_DELTA, messageId: "act-1", activityType: "progress", patch: [{ op: "replace", path: "/percent", value: 100 }] },
  { type: E.CUSTOM, name: "dispatch.usage", value: { tokens: 12 } },
  stepEnd("step-1"),
  textStart("m2"),
  textContent("m2", "Done."),
  textEnd("m2"),
  { ...runFinished, outcome: { type: "success" } },
];

describe("createEventSequenceGuard: valid runs", () => {
  it("accepts a complete run, which @ag-ui/client's verifyEvents also accepts", async () => {
    const guard = acceptAll(completeRun);
    expect(guard.status).toBe("finished");
    expectSchemaValid(completeRun);
    expect(await verify(completeRun)).toEqual(completeRun);
  });

  it("closes a cancelled run: ends what is open, innermost first, then RUN_FINISHED cancelled", async () => {
    const prefix = [runStarted, stepStart("step-1"), textStart("m1"), textContent("m1", "Let me"), toolStart("c1", "m1"), toolArgs("c1", "{")];
    const guard = acceptAll(prefix);
    const closing = guard.close({ type: "cancelled" });
    expect(closing).toEqual([
      { type: E.TOOL_CALL_END, toolCallId: "c1", timestamp: NOW },
      { type: E.TEXT_MESSAGE_END, messageId: "m1", timestamp: NOW },
      { type: E.STEP_FINISHED, stepName: "step-1", timestamp: NOW },
      { type: E.RUN_FINISHED, threadId: THREAD_ID, runId: RUN_ID, timestamp: NOW, outcome: { type: "cancelled" } },
    ]);
    expect(guard.status).toBe("finished");
    expectSchemaValid(closing);
    await expect(verify([...prefix, ...closing])).resolves.toHaveLength(prefix.length + closing.length);
    // Without the guard's END events the official client refuses the same ending.
    await expect(verify([...prefix, closing.at(-1)!])).rejects.toThrow(/RUN_FINISHED/);
  });

  it("closes a crashed run with END events and RUN_ERROR", async () => {
    const prefix = [runStarted, { type: E.REASONING_START, messageId: "r1" }, { type: E.REASONING_MESSAGE_START, messageId: "r1", role: "reasoning" }, textStart("m1")] as AgUiEvent[];
    const guard = acceptAll(prefix);
    const closing = guard.close({ type: "error", message: "model provider unreachable", code: "UPSTREAM_ERROR" });
    expect(closing.map((event) => event.type)).toEqual([E.TEXT_MESSAGE_END, E.REASONING_MESSAGE_END, E.REASONING_END, E.RUN_ERROR]);
    expect(closing.at(-1)).toEqual({ type: E.RUN_ERROR, message: "model provider unreachable", code: "UPSTREAM_ERROR", timestamp: NOW });
    expect(guard.status).toBe("errored");
    expectSchemaValid(closing);
    await expect(verify([...prefix, ...closing])).resolves.toHaveLength(prefix.length + closing.length);
  });

  it("finishes with a result on success and does nothing once the run has ended", async () => {
    const guard = acceptAll([runStarted, toolStart("c1")]);
    const closing = guard.close({ type: "success", result: { answer: 42 } });
    expect(closing.at(-1)).toEqual({ type: E.RUN_FINISHED, threadId: THREAD_ID, runId: RUN_ID, timestamp: NOW, outcome: { type: "success" }, result: { answer: 42 } });
    expect(guard.close({ type: "error", message: "late" })).toEqual([]);
    await expect(verify([runStarted, toolStart("c1"), ...closing])).resolves.toBeDefined();
  });

  it("ends a run that never started", async () => {
    const failed = newGuard().close({ type: "error", message: "could not start" });
    expect(failed).toEqual([{ type: E.RUN_ERROR, message: "could not start", timestamp: NOW }]);
    await expect(verify(failed)).resolves.toEqual(failed);

    const cancelled = newGuard().close({ type: "cancelled" });
    expect(cancelled.map((event) => event.type)).toEqual([E.RUN_STARTED, E.RUN_FINISHED]);
    await expect(verify(cancelled)).resolves.toEqual(cancelled);

    expect(() => createEventSequenceGuard().close({ type: "cancelled" })).toThrow(EventSequenceError);
  });

  it("changes nothing when it rejects an event, so the run can still be closed cleanly", async () => {
    const guard = acceptAll([runStarted, textStart("m1")]);
    expect(() => guard.accept(textContent("m1", ""))).toThrow(EventSequenceError);
    expect(() => guard.accept(textContent("m2", "x"))).toThrow(EventSequenceError);
    guard.accept(textContent("m1", "still fine"));
    const closing = guard.close({ type: "success" });
    await expect(verify([runStarted, textStart("m1"), textContent("m1", "still fine"), ...closing])).resolves.toBeDefined();
  });
});

type Invalid = { name: string; events: AgUiEvent[]; error: RegExp; officialClientRejects: boolean };

// The last event of each sequence is the bad one. Rows the official verifier also rejects
// prove the guard matches it; the rest are the guard's stricter rules.
const invalid: Invalid[] = [
  { name: "a first event other than RUN_STARTED", events: [textStart("m1")], error: /first event of a run must be RUN_STARTED/, officialClientRejects: true },
  { name: "content without a start", events: [runStarted, textContent("m1", "x")], error: /no open text message 'm1'/, officialClientRejects: true },
  { name: "an end without a start", events: [runStarted, textEnd("m1")], error: /no open text message 'm1'/, officialClientRejects: true },
  { name: "a message started twice", events: [runStarted, textStart("m1"), textStart("m1")], error: /message id 'm1' is already used/, officialClientRejects: true },
  { name: "tool args without a start", events: [runStarted, toolArgs("c1", "{}")], error: /no open tool call 'c1'/, officialClientRejects: true },
  { name: "a tool call started twice", events: [runStarted, toolStart("c1"), toolStart("c1")], error: /tool call id 'c1' is already used/, officialClientRejects: true },
  { name: "RUN_FINISHED with a message open", events: [runStarted, textStart("m1"), runFinished], error: /still open: text message 'm1'/, officialClientRejects: true },
  { name: "RUN_FINISHED with a tool call open", events: [runStarted, toolStart("c1"), runFinished], error: /still open: tool call 'c1'/, officialClientRejects: true },
  { name: "RUN_FINISHED with a step open", events: [runStarted, stepStart("s"), runFinished], error: /still open: step 's'/, officialClientRejects: true },
  {
    name: "RUN_FINISHED with reasoning open",
    events: [runStarted, { type: E.REASONING_MESSAGE_START, messageId: "r1", role: "reasoning" }, runFinished],
    error: /still open: reasoning message 'r1'/,
    officialClientRejects: true,
  },
  { name: "a step finished that never started", events: [runStarted, stepEnd("s")], error: /no open step 's'/, officialClientRejects: true },
  { name: "a step started twice", events: [runStarted, stepStart("s"), stepStart("s")], error: /step 's' is already active/, officialClientRejects: true },
  { name: "a second RUN_STARTED", events: [runStarted, runStarted], error: /already started/, officialClientRejects: true },
  { name: "an event after RUN_FINISHED", events: [runStarted, runFinished, textStart("m1")], error: /already finished/, officialClientRejects: true },
  { name: "an event after RUN_ERROR", events: [runStarted, { type: E.RUN_ERROR, message: "boom" }, textStart("m1")], error: /already ended with RUN_ERROR/, officialClientRejects: true },
  { name: "an empty text delta", events: [runStarted, textStart("m1"), textContent("m1", "")], error: /empty delta/, officialClientRejects: false },
  { name: "an empty tool args delta", events: [runStarted, toolStart("c1"), toolArgs("c1", "")], error: /empty delta/, officialClientRejects: false },
  { name: "a message id reused after its end", events: [runStarted, textStart("m1"), textEnd("m1"), textStart("m1")], error: /message id 'm1' is already used/, officialClientRejects: false },
  { name: "a tool result reusing a message id", events: [runStarted, textStart("m1"), textEnd("m1"), toolStart("c1"), toolEnd("c1"), toolResult("c1", "m1")], error: /message id 'm1' is already used/, officialClientRejects: false },
  { name: "a result for an unknown tool call", events: [runStarted, toolResult("c9", "t1")], error: /unknown tool call 'c9'/, officialClientRejects: false },
  { name: "a result before the tool call ended", events: [runStarted, toolStart("c1"), toolResult("c1", "t1")], error: /has not ended/, officialClientRejects: false },
  { name: "a second result for a tool call", events: [runStarted, toolStart("c1"), toolEnd("c1"), toolResult("c1", "t1"), toolResult("c1", "t2")], error: /already has a result/, officialClientRejects: false },
  { name: "RUN_FINISHED for another run", events: [runStarted, { ...runFinished, runId: "run-002" }], error: /must match RUN_STARTED/, officialClientRejects: false },
  { name: "RUN_STARTED for another run", events: [{ ...runStarted, runId: "run-002" }], error: /runId 'run-002' is not this run's/, officialClientRejects: false },
  { name: "a CHUNK shorthand event", events: [runStarted, { type: E.TEXT_MESSAGE_CHUNK, messageId: "m1", delta: "x" }], error: /not supported/, officialClientRejects: false },
  { name: "subagent attribution", events: [runStarted, { type: E.TEXT_MESSAGE_START, messageId: "m1", subagentRunId: "s1" }], error: /subagent attribution/, officialClientRejects: false },
  { name: "a schema-invalid event", events: [runStarted, { type: E.TEXT_MESSAGE_START } as AgUiEvent], error: /not a valid AG-UI 1.0 event \(messageId/, officialClientRejects: false },
  { name: "an unknown top-level field", events: [runStarted, { ...textStart("m1"), ui_schema: {} } as unknown as AgUiEvent], error: /unknown fields ui_schema/, officialClientRejects: false },
  { name: "a delta for an unknown activity", events: [runStarted, { type: E.ACTIVITY_DELTA, messageId: "a1", activityType: "p", patch: [] }], error: /unknown activity 'a1'/, officialClientRejects: false },
];

describe("createEventSequenceGuard: invalid sequences", () => {
  it.each(invalid)("rejects $name", async ({ events, error, officialClientRejects }) => {
    const guard = newGuard();
    const bad = events.at(-1)!;
    for (const event of events.slice(0, -1)) guard.accept(event);
    expect(() => guard.accept(bad)).toThrow(error);
    if (officialClientRejects) await expect(verify(events)).rejects.toThrow();
  });

  it("names the event type in its error", () => {
    const guard = acceptAll([runStarted]);
    expect(() => guard.accept(textEnd("m1"))).toThrow(/^TEXT_MESSAGE_END: no open text message 'm1'$/);
  });
});
