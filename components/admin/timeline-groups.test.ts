import { describe, expect, it } from "vitest";
import { groupTimeline, type TimelineEvent } from "./timeline-groups";

const at = new Date("2026-11-25T10:00:00Z");
const ev = (seq: number, type: string, payload: Record<string, unknown>): TimelineEvent => ({ seq, type, payload: JSON.stringify({ type, ...payload }), createdAt: at });

describe("the console's event timeline", () => {
  it("groups a message's chunks and a tool call's events into one entry each, keeping the raw events", () => {
    const groups = groupTimeline([
      ev(1, "RUN_STARTED", { runId: "r" }),
      ev(2, "TOOL_CALL_START", { toolCallId: "c1", toolCallName: "project_cli" }),
      ev(3, "TOOL_CALL_ARGS", { toolCallId: "c1", delta: '{"module":' }),
      ev(4, "TOOL_CALL_ARGS", { toolCallId: "c1", delta: '"calendar"}' }),
      ev(5, "TOOL_CALL_END", { toolCallId: "c1" }),
      ev(6, "TOOL_CALL_RESULT", { toolCallId: "c1", content: "{}" }),
      ev(7, "TEXT_MESSAGE_START", { messageId: "m1" }),
      ev(8, "TEXT_MESSAGE_CONTENT", { messageId: "m1", delta: "Two " }),
      ev(9, "TEXT_MESSAGE_CONTENT", { messageId: "m1", delta: "sentences." }),
      ev(10, "TEXT_MESSAGE_END", { messageId: "m1" }),
      ev(11, "RUN_FINISHED", { runId: "r" }),
    ]);
    expect(groups.map((g) => [g.kind, g.events.length])).toEqual([
      ["RUN_STARTED", 1],
      ["TOOL_CALL", 5],
      ["TEXT_MESSAGE", 4],
      ["RUN_FINISHED", 1],
    ]);
    expect(groups[1]!.summary).toBe('project_cli {"module":"calendar"}');
    expect(groups[2]!.summary).toBe("Two sentences.");
  });
});
