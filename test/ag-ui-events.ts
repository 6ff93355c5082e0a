import { EventType } from "@ag-ui/core";
import type { AgUiEvent } from "@/server/protocols/ag-ui/events";
import { serializeEvent } from "@/server/protocols/ag-ui/sse";
import type { EventRecord } from "@/server/kernel/runs";

// One run that holds every AG-UI 1.0 event type the event guard admits into a run's log, with
// the optional fields 1.0 added (metadata, content parts, outcomes, usage), and the ways a run
// can end. The encodings are tested against it, and that the guard takes it.

export const THREAD_ID = "3f1c9a4e-8d2b-4c6a-9e1f-2a7b5c8d0e11";
export const RUN_ID = "run-catalogue";

export const UI_SCHEMA = {
  version: "2.0",
  locale: "zh-CN",
  status: "success",
  theme: "default",
  root: { type: "stack", appearance: "card", children: [{ type: "text", content: "日程已创建", role: "title" }, { type: "badge", label: "SUCCESS", status: "success" }] },
};

const ts = 1_767_225_600_000;

/** The run up to its end: every admitted type but the terminal ones. */
export const RUN_BODY: AgUiEvent[] = [
  // The input as a 1.0 client sends it, without the tools and context 1.0 lets default to [].
  {
    type: EventType.RUN_STARTED,
    threadId: THREAD_ID,
    runId: RUN_ID,
    timestamp: ts,
    input: {
      threadId: THREAD_ID,
      runId: RUN_ID,
      protocolVersion: "1.0",
      messages: [{ id: "u1", role: "user", content: [{ type: "text", text: "看看这张图" }, { type: "image", source: { type: "url", value: "https://files.example/a.png", mimeType: "image/png" } }] }],
    },
  } as unknown as AgUiEvent,
  { type: EventType.STATE_SNAPSHOT, snapshot: { locale: "zh-CN" } },
  { type: EventType.STATE_DELTA, delta: [{ op: "add", path: "/step", value: 1 }] },
  {
    type: EventType.MESSAGES_SNAPSHOT,
    messages: [
      {
        id: "u1",
        role: "user",
        content: [
          { type: "text", text: "看看这张图" },
          { type: "image", source: { type: "url", value: "https://files.example/a.png", mimeType: "image/png" } },
          { type: "document", source: { type: "data", value: "JVBERi0=", mimeType: "application/pdf" } },
          { type: "image", source: { type: "file", value: "file-1" } },
        ],
      },
      { id: "a0", role: "assistant", content: "earlier", toolCalls: [{ id: "c0", type: "function", function: { name: "project_cli", arguments: "{}" } }] },
      { id: "t0", role: "tool", toolCallId: "c0", content: [{ type: "text", text: "done" }], metadata: { ui_schema: UI_SCHEMA } },
      // A reasoning model's thinking, as the thread keeps it: pre-1.0 clients read it as it is.
      { id: "r0", role: "reasoning", content: "先看日历再回答" },
    ],
  },
  { type: EventType.STEP_STARTED, stepName: "think" },
  { type: EventType.REASONING_START, messageId: "rs1" },
  { type: EventType.REASONING_MESSAGE_START, messageId: "rm1", role: "reasoning" },
  { type: EventType.REASONING_MESSAGE_CONTENT, messageId: "rm1", delta: "先查日历" },
  { type: EventType.REASONING_MESSAGE_END, messageId: "rm1" },
  { type: EventType.REASONING_END, messageId: "rs1" },
  { type: EventType.REASONING_ENCRYPTED_VALUE, subtype: "message", entityId: "rm1", encryptedValue: "opaque" },
  { type: EventType.STEP_FINISHED, stepName: "think" },
  { type: EventType.TEXT_MESSAGE_START, messageId: "m1", role: "assistant", metadata: { model: "demo" } },
  { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "好的，" },
  { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "我来创建。", timestamp: ts },
  { type: EventType.TEXT_MESSAGE_END, messageId: "m1", metadata: { finishReason: "tool-calls" } },
  { type: EventType.TOOL_CALL_START, toolCallId: "c1", toolCallName: "project_cli", parentMessageId: "m1" },
  { type: EventType.TOOL_CALL_ARGS, toolCallId: "c1", delta: '{"command":"calendar create"}' },
  { type: EventType.TOOL_CALL_END, toolCallId: "c1" },
  { type: EventType.TOOL_CALL_RESULT, messageId: "t1", toolCallId: "c1", content: '{"ok":true}', role: "tool", metadata: { ui_schema: UI_SCHEMA } },
  { type: EventType.TOOL_CALL_START, toolCallId: "c2", toolCallName: "lookup" },
  { type: EventType.TOOL_CALL_END, toolCallId: "c2" },
  { type: EventType.TOOL_CALL_RESULT, messageId: "t2", toolCallId: "c2", content: [{ type: "text", text: "found" }, { type: "image", source: { type: "url", value: "https://files.example/b.png" } }] },
  { type: EventType.ACTIVITY_SNAPSHOT, messageId: "act1", activityType: "progress", content: { done: 1 } },
  { type: EventType.ACTIVITY_DELTA, messageId: "act1", activityType: "progress", patch: [{ op: "replace", path: "/done", value: 2 }] },
  { type: EventType.CUSTOM, name: "artifact.created", value: { id: "art-1" } },
  { type: EventType.RAW, event: { vendor: "x" }, source: "runner" },
];

const usage = [{ model: "demo", inputTokens: 10, outputTokens: 5, totalTokens: 15, cacheWriteInputTokens: 2 }];

/** The terminal events a run can end with. */
export const RUN_ENDINGS: Record<string, AgUiEvent> = {
  success: { type: EventType.RUN_FINISHED, threadId: THREAD_ID, runId: RUN_ID, timestamp: ts, outcome: { type: "success" }, result: { summary: "done" }, usage },
  "success with pending tool calls": { type: EventType.RUN_FINISHED, threadId: THREAD_ID, runId: RUN_ID, outcome: { type: "success", pendingToolCallIds: ["c9"] } },
  cancelled: { type: EventType.RUN_FINISHED, threadId: THREAD_ID, runId: RUN_ID, timestamp: ts, outcome: { type: "cancelled" } },
  interrupt: {
    type: EventType.RUN_FINISHED,
    threadId: THREAD_ID,
    runId: RUN_ID,
    outcome: { type: "interrupt", interrupts: [{ id: "i1", reason: "approval", toolCallId: "c1", message: "Create it?", responseSchema: { type: "object" }, metadata: { risk: "low" } }] },
  },
  error: { type: EventType.RUN_ERROR, message: "The agent failed while running; see the run log", code: "RUNNER_ERROR", timestamp: ts, usage },
};

/** A run's events as the log stores them: sequence numbers from 1, the JSON serialized once. */
export function records(events: AgUiEvent[]): EventRecord[] {
  return events.map((event, i) => ({ seq: i + 1, type: event.type, json: serializeEvent(event) }));
}
