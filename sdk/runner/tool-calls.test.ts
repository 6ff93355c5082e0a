import { describe, expect, it } from "vitest";
import { testRunContext } from "./testing";
import { approvalCall, callClientTool, clientTools, decidedApprovals, pendingApproval, toolResults } from "./tool-calls";

const approval = { approval_id: "a1", tool_call_id: "call_1", action: "memory.update", status: "approved", input: { key: "k", value: "v" }, reason: null };

describe("tool calls that outlive a run", () => {
  it("reads the client's tools, its answers and the decisions from the run's context", () => {
    const ctx = testRunContext("", {
      metadata: {
        request: { tools: [{ name: "get_weather", description: "Weather", parameters: { type: "object" } }, { nameless: true }] },
        tool_results: [{ tool_call_id: "call_0", tool_name: "get_weather", content: "sunny" }],
        approvals: [approval],
      },
    });
    expect(clientTools(ctx)).toEqual([{ name: "get_weather", description: "Weather", parameters: { type: "object" } }]);
    expect(toolResults(ctx)).toEqual([{ tool_call_id: "call_0", tool_name: "get_weather", content: "sunny" }]);
    expect(decidedApprovals(ctx)).toEqual([approval]);
    expect(approvalCall(decidedApprovals(ctx)[0]!)).toEqual({ tool_name: "project_cli", tool_call_id: "call_1", parameters: { module: "memory", method: "update", input: { key: "k", value: "v" } } });
    // A context without them (an older host) reads as none.
    expect(toolResults(testRunContext("hi"))).toEqual([]);
    expect(decidedApprovals(testRunContext("hi"))).toEqual([]);
  });

  it("calls a client tool as a tool.call.started result and recognises a write waiting for approval", () => {
    expect(callClientTool("get_weather", { city: "Paris" }, { id: "call_9" })).toEqual({
      type: "tool.call.started",
      data: { tool_call_id: "call_9", tool_name: "get_weather", parameters: { city: "Paris" } },
    });
    const base = { tool_name: "project_cli", tool_call_id: "c", tool_response_text: "", ui_schema: null };
    const output = { tool_name: "project_cli", tool_call_id: "c", tool_call_args: {}, result: null, ui_hints: null };
    const waiting = { ...base, output: { ...output, status: "failure" as const, error: { code: "APPROVAL_PENDING", message: "wait", approval: { id: "a1", expiresAt: "2030-01-01T00:00:00.000Z" } } } };
    expect(pendingApproval(waiting)).toEqual({ id: "a1", expiresAt: "2030-01-01T00:00:00.000Z" });
    expect(pendingApproval({ ...base, output: { ...output, status: "failure" as const, error: { code: "NOT_APPROVED", message: "no" } } })).toBeNull();
  });
});
