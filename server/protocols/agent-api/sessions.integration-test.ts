import { beforeAll, describe, expect, it } from "vitest";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { getJson } from "@/test/runs";
import { AgentResponseSchema, type AgentResponse } from "./response";

// Agent API sessions over real HTTP against the production server and its scripted
// OpenAI-compatible model (test/fake-llm.ts): [[call:NAME {...}]] makes the model call a tool,
// [[show:messages]] makes it answer with the conversation it was given, one line a message.

let alice: Awaited<ReturnType<typeof createTestUser>>;
let bob: Awaited<ReturnType<typeof createTestUser>>;
beforeAll(async () => {
  [alice, bob] = await Promise.all([createTestUser(), createTestUser()]);
});

const text = (role: string, value: string) => ({ type: "message", role, content: [{ type: "text", text: value }] });
const output = (callId: string, out: string) => ({ type: "function_call_output", role: "tool", content: [{ type: "data", data: { call_id: callId, output: out } }] });
const WEATHER_TOOL = { type: "function", function: { name: "get_weather", description: "The weather in a city", parameters: { type: "object", properties: { city: { type: "string" } } } } };

async function process(key: string, body: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${baseUrl()}/api/v1/agent/process`, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify({ stream: false, ...body }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function respond(key: string, body: Record<string, unknown>): Promise<AgentResponse> {
  const { status, body: json } = await process(key, body);
  expect(status, JSON.stringify(json)).toBe(200);
  return AgentResponseSchema.parse(json);
}

const answer = (response: AgentResponse) =>
  response.output
    .filter((m) => m.type === "message" && m.role === "assistant")
    .flatMap((m) => m.content.map((c) => (c.type === "text" ? c.text : "")))
    .join("");

describe("Agent API client tools", () => {
  it("continues the run with a function_call_output for the call it made, on the same session", async () => {
    const first = await respond(alice.apiKey, { input: [text("user", '[[call:get_weather {"city":"Paris"}]] weather please')], tools: [WEATHER_TOOL] });
    expect(first.status).toBe("completed");
    const call = first.output.find((m) => m.type === "function_call");
    const data = call?.content[0]?.type === "data" ? (call.content[0].data as { call_id: string; name: string; arguments: string }) : null;
    expect(data).toMatchObject({ name: "get_weather", arguments: '{"city":"Paris"}' });
    // The client's tool: no output from the server.
    expect(first.output.some((m) => m.type === "function_call_output")).toBe(false);

    const second = await respond(alice.apiKey, { session_id: first.session_id, input: [output(data!.call_id, "sunny, 21C")], tools: [WEATHER_TOOL] });
    expect(second).toMatchObject({ status: "completed", session_id: first.session_id });
    expect(answer(second)).toBe("Tool said: sunny, 21C");

    // Answered calls are closed, and only open calls of this session can be answered.
    const again = await process(alice.apiKey, { session_id: first.session_id, input: [output(data!.call_id, "rain")] });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ details: { field: "input[0]" }, message: expect.stringContaining("not an open client tool call") });

    const history = (await (await getJson(alice.apiKey, `/api/v1/agent/history?threadId=${first.session_id}`)).json()) as { messages: { role: string; content: string }[] };
    expect(history.messages.map((m) => m.role)).toEqual(["user", "tool", "assistant"]);
    expect(history.messages[1]!.content).toBe("sunny, 21C");
  });

  it("follows the same response when the request that answered a call is repeated with its response_id", async () => {
    const first = await respond(alice.apiKey, { input: [text("user", '[[call:get_weather {"city":"Oslo"}]] weather please')], tools: [WEATHER_TOOL] });
    const call = first.output.find((m) => m.type === "function_call")!.content[0]!;
    const callId = call.type === "data" ? (call.data.call_id as string) : "";
    const request = { session_id: first.session_id, response_id: `resp-${first.id}-2`, input: [output(callId, "snow, -3C")], tools: [WEATHER_TOOL] };
    const answered = await respond(alice.apiKey, request);
    expect(answer(answered)).toBe("Tool said: snow, -3C");
    // A client that lost the answer asks again: the call is answered by now, and it is the same response.
    expect(await respond(alice.apiKey, request)).toEqual(answered);
  });
});

describe("Agent API sessions", () => {
  it("takes any session_id as the caller's own name for a session, seeded by a new session's earlier turns", async () => {
    const name = "support-chat #42 ✓";
    const seeded = await respond(alice.apiKey, {
      session_id: name,
      input: [text("system", "Answer in English."), text("user", "my name is Ada"), text("assistant", "Hello Ada"), text("user", "[[show:messages]] who am I?")],
    });
    expect(seeded.session_id).toBe(name);
    expect(answer(seeded)).toBe("user: my name is Ada\nassistant: Hello Ada\nuser: [[show:messages]] who am I?");

    const next = await respond(alice.apiKey, { session_id: name, input: [text("user", "[[show:messages]] again")] });
    expect(next.session_id).toBe(name);
    expect(answer(next).split("\n").slice(0, 3)).toEqual(["user: my name is Ada", "assistant: Hello Ada", "user: [[show:messages]] who am I?"]);

    // The same name is another session for another caller.
    const bobs = await respond(bob.apiKey, { session_id: name, input: [text("user", "[[show:messages]] hi")] });
    expect(answer(bobs)).toBe("user: [[show:messages]] hi");

    // A response found by its id alone still names its session as the client did.
    const replay = await respond(alice.apiKey, { response_id: next.id, input: [text("user", "x")] });
    expect(replay).toMatchObject({ id: next.id, session_id: name });
    const cancel = await fetch(`${baseUrl()}/api/v1/agent/process/${encodeURIComponent(next.id)}/cancel`, { method: "POST", headers: bearer(alice.apiKey) });
    expect(await cancel.json()).toMatchObject({ session_id: name });
  });

  it("refuses with 400 naming the item what a session cannot take, writing nothing", async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ session_id: "fresh-1", input: [text("user", "hi"), text("assistant", "hello")] }, "input[1]", "must end with the new turn"],
      [{ session_id: "fresh-2", input: [output("call_x", "42")] }, "input[0]", "new session's input must end with a user message"],
      [{ session_id: "fresh-3", input: [{ type: "mcp_list_tools", role: "assistant" }, text("user", "hi")] }, "input[0]", "cannot seed"],
      [{ input: [{ type: "mcp_approval_response", role: "user" }] }, "session_id", "required with mcp_approval_response"],
    ];
    for (const [body, field, message] of cases) {
      const res = await process(alice.apiKey, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatchObject({ code: "BAD_REQUEST", details: { field }, message: expect.stringContaining(message) });
    }
    // Nothing was written: the first session is still new and takes earlier turns.
    const seeded = await respond(alice.apiKey, { session_id: "fresh-1", input: [text("user", "hi"), text("assistant", "hello"), text("user", "[[show:messages]] ok")] });
    expect(answer(seeded)).toBe("user: hi\nassistant: hello\nuser: [[show:messages]] ok");
  });
});
