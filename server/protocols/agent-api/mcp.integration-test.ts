import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { startGrantedTicketsServer } from "@/test/mcp-servers";
import { postRun, runInput } from "@/test/runs";
import { collectSse } from "@/test/sse";
import type { Message, StreamObject } from "./response";

// The built-in agent's MCP work on the Agent API, over real HTTP with the scripted model: a read of
// an MCP server's skill document is an mcp_list_tools message, a call of its tool an mcp_call, each
// with its output; the AG-UI door shows the same work as project_cli tool calls.

const TOKEN = `token-${randomUUID()}`;
const SERVER = `tix_${randomUUID().slice(0, 8)}`;

let user: Awaited<ReturnType<typeof createTestUser>>;
let dispose: (() => Promise<void>) | undefined;

beforeAll(async () => {
  user = await createTestUser();
  ({ dispose } = await startGrantedTicketsServer({ name: SERVER, token: TOKEN, email: user.email }));
}, 60_000);

afterAll(() => dispose?.());

const turn = `[[tool:skills.read {"skill":"${SERVER}"}]] [[tool:${SERVER}.find_ticket {"id":"T-7"}]] [[tool:memory.read {}]]`;

describe("MCP work on the Agent API", () => {
  it("streams mcp_list_tools and mcp_call messages with their outputs, and function_call for a built-in module", async () => {
    const res = await fetch(`${baseUrl()}/api/v1/agent/process`, {
      method: "POST",
      headers: { ...bearer(user.apiKey), "content-type": "application/json" },
      body: JSON.stringify({ input: [{ role: "user", type: "message", content: [{ type: "text", text: turn }] }] }),
    });
    expect(res.status).toBe(200);
    const objects = (await collectSse(res)).map((f) => JSON.parse(f.data) as StreamObject);
    const last = objects.at(-1)!;
    if (last.object !== "response") throw new Error("the stream did not end with its response");
    expect(last.status).toBe("completed");
    const done = (type: Message["type"]) => last.output.filter((m) => m.type === type).map((m) => (m.content[0] as { data: Record<string, unknown> }).data);
    expect(done("mcp_list_tools")).toEqual([expect.objectContaining({ server_label: SERVER, tools: expect.arrayContaining([expect.objectContaining({ name: "find_ticket" })]), error: null })]);
    expect(done("mcp_call")).toEqual([expect.objectContaining({ server_label: SERVER, name: "find_ticket", arguments: '{"id":"T-7"}', output: expect.stringContaining("T-7"), error: null })]);
    // The built-in module's call keeps its function_call and output.
    expect(done("function_call")).toEqual([expect.objectContaining({ name: "project_cli", arguments: expect.stringContaining('"memory"') })]);
    expect(done("function_call_output")).toHaveLength(1);
    // Each mcp message was opened, then completed, under one id.
    const ids = last.output.filter((m) => m.type === "mcp_call").map((m) => m.id);
    expect(objects.filter((o) => o.object === "message" && o.id === ids[0]).map((o) => (o as Message).status)).toEqual(["created", "in_progress", "completed"]);
  });

  it("shows the same work as project_cli tool calls on AG-UI", async () => {
    const list = (await collectSse(await postRun(user.apiKey, runInput({}, turn), { stream: true }))).map((f) => JSON.parse(f.data) as Record<string, unknown>);
    const starts = list.filter((e) => e.type === "TOOL_CALL_START");
    expect(starts.map((e) => e.toolCallName)).toEqual(["project_cli", "project_cli", "project_cli"]);
    const results = list.filter((e) => e.type === "TOOL_CALL_RESULT").map((e) => String(e.content));
    expect(results[1]).toContain("T-7");
  });
});
