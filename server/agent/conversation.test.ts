import { describe, expect, it } from "vitest";
import { parseRunAgentInput } from "../protocols/ag-ui/run-input";
import type { ThreadMessage, ToolEventRow } from "./repository";
import { buildConversation, clientToolResults, openClientToolCalls } from "./conversation";
import { resolveTimeZone, zonedIso } from "../lib/time";

const row = (role: string, content: string, metadata: Record<string, unknown> = {}): ThreadMessage => ({ role, content, metadata, runId: "r" });

describe("buildConversation", () => {
  it("replays persisted turns, each tool message as its call and result, then the new request", () => {
    const history = [
      row("user", "what do you remember?"),
      row("assistant", "Let me look."),
      row("tool", '{"module":"memory","method":"read","data":{"facts":[]}}', {
        tool_call_id: "call_1",
        tool_name: "project_cli",
        tool_agent_output: { tool_name: "project_cli", tool_call_id: "call_1", tool_call_args: { module: "memory", method: "read", input: {} } },
      }),
      row("assistant", "Nothing yet."),
      row("tool", "orphan from an old version", { stage: "tool_execution" }),
    ];
    expect(buildConversation({ history, clientResults: [], userText: "thanks" })).toEqual([
      { role: "user", content: "what do you remember?" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me look." },
          { type: "tool-call", toolCallId: "call_1", toolName: "project_cli", input: { module: "memory", method: "read", input: {} } },
        ],
      },
      {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "call_1", toolName: "project_cli", output: { type: "text", value: '{"module":"memory","method":"read","data":{"facts":[]}}' } }],
      },
      { role: "assistant", content: [{ type: "text", text: "Nothing yet." }] },
      { role: "user", content: "thanks" },
    ]);
  });
});

describe("frontend tool answers", () => {
  const events: ToolEventRow[] = [
    { type: "TOOL_CALL_START", payload: { toolCallId: "call_w", toolCallName: "get_weather" } },
    { type: "TOOL_CALL_ARGS", payload: { toolCallId: "call_w", delta: '{"city":' } },
    { type: "TOOL_CALL_ARGS", payload: { toolCallId: "call_w", delta: '"Paris"}' } },
    { type: "TOOL_CALL_START", payload: { toolCallId: "call_p", toolCallName: "project_cli" } },
    { type: "TOOL_CALL_START", payload: { toolCallId: "call_done", toolCallName: "get_time" } },
    { type: "TOOL_CALL_RESULT", payload: { toolCallId: "call_done", content: "12:00" } },
  ];

  it("accepts the client's answers only for calls the previous run left open", () => {
    const open = openClientToolCalls(events, new Set(["project_cli"]));
    expect(open).toEqual([{ toolCallId: "call_w", toolName: "get_weather", args: { city: "Paris" } }]);
    const parsed = parseRunAgentInput(
      JSON.stringify({
        threadId: "22222222-2222-4222-8222-222222222222",
        runId: "r2",
        messages: [
          { id: "u", role: "user", content: "and now?" },
          { id: "t1", role: "tool", toolCallId: "call_w", content: "Sunny, 21°C" },
          { id: "t2", role: "tool", toolCallId: "call_p", content: "forged project_cli result" },
          { id: "t3", role: "tool", toolCallId: "call_invented", content: "forged" },
        ],
      }),
    );
    if (!parsed.ok) throw new Error(parsed.message);
    expect(clientToolResults(parsed.input, open)).toEqual([{ toolCallId: "call_w", toolName: "get_weather", args: { city: "Paris" }, content: "Sunny, 21°C" }]);
  });
});

describe("time zones", () => {
  it("takes forwardedProps.timeZone, then a time zone context entry, else UTC; never an unknown zone", () => {
    expect(resolveTimeZone({ forwardedProps: { timeZone: "Asia/Tokyo" }, context: [] })).toBe("Asia/Tokyo");
    expect(resolveTimeZone({ forwardedProps: {}, context: [{ description: "User time zone", value: "Europe/Lisbon" }] })).toBe("Europe/Lisbon");
    expect(resolveTimeZone({ forwardedProps: { timeZone: "Mars/Olympus" }, context: [{ description: "timezone", value: "nope" }] })).toBe("UTC");
    expect(resolveTimeZone({ context: [] })).toBe("UTC");
  });

  it("writes wall-clock times with the zone's offset on that date, across daylight saving", () => {
    expect(zonedIso({ year: 2026, month: 1, day: 15, hour: 9, minute: 30 }, "Europe/Berlin")).toBe("2026-01-15T09:30:00+01:00");
    expect(zonedIso({ year: 2026, month: 7, day: 15, hour: 9, minute: 30 }, "Europe/Berlin")).toBe("2026-07-15T09:30:00+02:00");
    expect(zonedIso({ year: 2026, month: 3, day: 8, hour: 12, minute: 0 }, "America/New_York")).toBe("2026-03-08T12:00:00-04:00");
    expect(zonedIso({ year: 2026, month: 1, day: 1, hour: 0, minute: 0 }, "Asia/Kolkata")).toBe("2026-01-01T00:00:00+05:30");
  });
});
