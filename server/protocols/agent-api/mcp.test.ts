import { EventType as E } from "@ag-ui/core";
import { describe, expect, it } from "vitest";
import { createEventSequenceGuard } from "../ag-ui/event-guard";
import type { AgUiEvent } from "../ag-ui/events";
import { createAgentApiEncoder } from "./encoder";
import { StreamObjectSchema, type StreamObject } from "./response";

// The built-in agent's work with an MCP server (a project_cli call of a module that is one of
// the run's servers) as the spec's mcp_list_tools and mcp_call messages.

const THREAD_ID = "6f1c1a4e-5f0b-4a52-9c1e-2b1d6a1e9f00";
const RUN_ID = "response_1";

const call = (id: string, args: unknown, result: unknown): AgUiEvent[] => [
  { type: E.TOOL_CALL_START, toolCallId: id, toolCallName: "project_cli" },
  { type: E.TOOL_CALL_ARGS, toolCallId: id, delta: JSON.stringify(args) },
  { type: E.TOOL_CALL_END, toolCallId: id },
  { type: E.TOOL_CALL_RESULT, toolCallId: id, messageId: `tool_${id}`, content: JSON.stringify(result), role: "tool" },
];

const document = {
  module: "skills",
  method: "read",
  data: { skill: "tickets", actions: [{ action: "tickets.find_ticket", kind: "read", does: "Finds a ticket", input: { type: "object", properties: { id: { type: "string" } } } }] },
};

function encode(events: AgUiEvent[], mcpServers?: ReadonlySet<string>): StreamObject[] {
  const guard = createEventSequenceGuard({ threadId: THREAD_ID, runId: RUN_ID, now: () => 0 });
  const all: AgUiEvent[] = [{ type: E.RUN_STARTED, threadId: THREAD_ID, runId: RUN_ID }, ...events];
  for (const event of all) guard.accept(event);
  const encoder = createAgentApiEncoder({ responseId: RUN_ID, sessionId: THREAD_ID, createdAt: 0, now: () => 0, ...(mcpServers ? { mcpServers } : {}) });
  return [...all, ...guard.close({ type: "success" })].flatMap((e) => encoder.encode(e));
}

const shape = (o: StreamObject) => (o.object === "message" ? `${o.type}:${o.status}` : o.object === "content" ? `content:${o.status}` : `response:${o.status}`);

describe("Agent API: MCP work has the spec's own message types", () => {
  const events = [
    ...call("c1", { module: "skills", method: "read", input: { skill: "tickets" } }, document),
    ...call("c2", { module: "tickets", method: "find_ticket", input: { id: "T-1" } }, { module: "tickets", method: "find_ticket", data: { title: "Printer" } }),
    ...call("c3", { module: "tickets", method: "close_ticket", input: { id: "T-1" } }, { status: "failure", error: { code: "TOOL_UNAVAILABLE", message: "The server did not answer" } }),
    ...call("c4", { module: "memory", method: "read", input: {} }, { module: "memory", method: "read", data: { facts: [] } }),
  ];

  it("streams mcp_list_tools and mcp_call messages, each completed with its output, and keeps function_call for built-in modules", () => {
    const objects = encode(events, new Set(["tickets"]));
    for (const o of objects) expect(StreamObjectSchema.safeParse(o).success, JSON.stringify(o)).toBe(true);
    expect(objects.map(shape)).toEqual([
      "response:created",
      "response:in_progress",
      ...["mcp_list_tools", "mcp_call", "mcp_call", "function_call", "function_call_output"].flatMap((t) => [`${t}:created`, `${t}:in_progress`, "content:completed", `${t}:completed`]),
      "response:completed",
    ]);
    const last = objects.at(-1)!;
    if (last.object !== "response") throw new Error("no response");
    const [list, found, failed] = last.output.map((m) => m.content[0]);
    expect(list).toMatchObject({ type: "data", data: { id: "c1", type: "mcp_list_tools", server_label: "tickets", tools: [{ name: "find_ticket", description: "Finds a ticket", input_schema: { type: "object" } }], error: null } });
    expect(found).toMatchObject({ data: { id: "c2", type: "mcp_call", server_label: "tickets", name: "find_ticket", arguments: '{"id":"T-1"}', output: expect.stringContaining("Printer"), error: null } });
    expect(failed).toMatchObject({ data: { id: "c3", type: "mcp_call", name: "close_ticket", error: "TOOL_UNAVAILABLE: The server did not answer" } });
  });

  it("shows every call as a function_call when the run has no MCP server", () => {
    const types = new Set(encode(events).flatMap((o) => (o.object === "message" ? [o.type] : [])));
    expect([...types].sort()).toEqual(["function_call", "function_call_output"]);
  });
});
