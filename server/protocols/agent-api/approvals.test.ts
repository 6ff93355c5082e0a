import { describe, expect, it } from "vitest";
import { approvalRequests } from "./approvals";

// The Agent API's mcp_approval_request data, from the interrupts a run ended with.
describe("approvalRequests", () => {
  it("names the built-in agent's tool, project_cli, with the arguments its call streamed", () => {
    const [request] = approvalRequests([{ id: "a1", reason: "tool_approval", toolCallId: "c1", message: "Remember it?" }], new Map([["c1", '{"module":"memory"}']]));
    expect(request).toMatchObject({ id: "a1", name: "project_cli", arguments: '{"module":"memory"}', call_id: "c1", reason: "Remember it?" });
  });

  it("names an AG-UI agent's own tool, and its kept arguments when the agent never streamed the call", () => {
    const interrupt = {
      id: "a2",
      reason: "mastra:tool_suspend",
      toolCallId: "c2",
      metadata: { approval: { action: "agent.interrupt", input: { tool_call: { name: "send_mail", args: { to: "ana@example.com" } } } } },
    };
    expect(approvalRequests([interrupt], new Map())[0]).toMatchObject({ name: "send_mail", arguments: '{"to":"ana@example.com"}', call_id: "c2", reason: "mastra:tool_suspend" });
    expect(approvalRequests([interrupt], new Map([["c2", '{"to":"bo@example.com"}']]))[0]!.arguments).toBe('{"to":"bo@example.com"}');
  });
});
