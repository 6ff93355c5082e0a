import { describe, expect, it } from "vitest";
import { splitInput } from "./input-items";
import { AgentRequestSchema, type InputMessage } from "./request";

const text = (role: string, value: string, extra: Record<string, unknown> = {}) => ({ type: "message", role, content: [{ type: "text", text: value }], ...extra });
const call = (callId: string, name = "get_weather", args = '{"city":"Paris"}') => ({ type: "function_call", role: "assistant", content: [{ type: "data", data: { call_id: callId, name, arguments: args } }] });
const output = (callId: string, out: unknown = "sunny") => ({ type: "function_call_output", role: "tool", content: [{ type: "data", data: { call_id: callId, output: out } }] });
const input = (items: unknown[]): InputMessage[] => AgentRequestSchema.parse({ input: items }).input;

describe("splitInput", () => {
  it("seeds a new session with every turn before its last user message, pairing calls with their outputs", () => {
    const split = splitInput(input([text("system", "Be brief."), text("user", "hi"), text("assistant", "hello"), call("c1"), output("c1", { temp: 21 }), text("user", "and now?")]), true);
    expect(split).toEqual({
      ok: true,
      turns: {
        instructions: [{ index: 0, text: "Be brief." }],
        seed: [
          { index: 1, role: "user", id: undefined, content: "hi" },
          { index: 2, role: "assistant", id: undefined, content: "hello" },
          { index: 4, role: "tool", id: undefined, content: '{"temp":21}', call: { callId: "c1", name: "get_weather", arguments: { city: "Paris" } } },
        ],
        outputs: [],
        approvals: [],
        userIndex: 5,
      },
    });
  });

  it("takes only the new tail on an existing session: outputs, approval responses, then one user message", () => {
    const split = splitInput(input([output("c1"), { type: "mcp_approval_response", role: "user" }, text("user", "thanks")]), false);
    expect(split).toMatchObject({ ok: true, turns: { seed: [], outputs: [{ index: 0, callId: "c1", output: "sunny" }], approvals: [{ index: 1 }], userIndex: 2 } });
    expect(splitInput(input([output("c1")]), false)).toMatchObject({ ok: true, turns: { userIndex: null, outputs: [{ callId: "c1" }] } });
  });

  it("names the item that does not fit", () => {
    expect(splitInput(input([text("user", "old"), text("user", "new")]), false)).toMatchObject({ ok: false, field: "input[0]", message: expect.stringContaining("existing session") });
    expect(splitInput(input([text("user", "hi"), text("assistant", "hello")]), true)).toMatchObject({ ok: false, field: "input[1]", message: expect.stringContaining("must end with the new turn") });
    expect(splitInput(input([output("c1")]), true)).toMatchObject({ ok: false, field: "input[0]", message: expect.stringContaining("new session") });
    expect(splitInput(input([call("c1"), text("user", "x")]), true)).toMatchObject({ ok: false, field: "input[0]", message: expect.stringContaining("no function_call_output") });
    expect(splitInput(input([output("c9"), text("user", "x")]), true)).toMatchObject({ ok: false, field: "input[0]", message: expect.stringContaining("answers no function_call") });
    expect(splitInput(input([{ type: "mcp_call", role: "assistant" }, text("user", "x")]), true)).toMatchObject({ ok: false, field: "input[0]" });
    expect(splitInput(input([text("user", "see", { content: [{ type: "image", image_url: "https://x.example/a.png" }] }), text("user", "x")]), true)).toMatchObject({
      ok: false,
      field: "input[0].content[0]",
    });
    expect(splitInput(input([{ type: "function_call_output", role: "tool", content: [{ type: "data", data: { output: "x" } }] }]), false)).toMatchObject({ ok: false, field: "input[0].content" });
    expect(splitInput(input([text("user", "x".repeat(40_000))]), true)).toMatchObject({ ok: false, field: "input[0].content" });
  });
});
