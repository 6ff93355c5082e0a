import { describe, expect, it } from "vitest";
import { parseRunAgentInput, userMessageParts, type RunAgentInput } from "./run-input";

const THREAD_ID = "550e8400-e29b-41d4-a716-446655440000";
const IMAGE_URL = "https://storage.example.com/agent-inputs/user-123/image.png?signature=xxx";

type Body = Record<string, unknown>;
const user = (content: unknown) => ({ id: "msg-001", role: "user", content });
const base = (overrides: Body = {}): Body => ({ threadId: THREAD_ID, runId: "run-001", messages: [user("hello")], ...overrides });
const parse = (body: Body | string) => parseRunAgentInput(typeof body === "string" ? body : JSON.stringify(body));
const accepted = (body: Body): RunAgentInput => {
  const result = parse(body);
  if (!result.ok) throw new Error(`expected the body to be accepted, got ${result.message}`);
  return result.input;
};

describe("parseRunAgentInput: structural errors name the field", () => {
  const rows: Array<{ name: string; body: Body | string; message: string; field?: string }> = [
    { name: "array body", body: "[]", message: "RunAgentInput must be a JSON object" },
    { name: "null body", body: "null", message: "RunAgentInput must be a JSON object" },
    { name: "missing threadId", body: base({ threadId: undefined }), message: "threadId: required", field: "threadId" },
    { name: "numeric threadId", body: base({ threadId: 42 }), message: "threadId: expected string", field: "threadId" },
    { name: "missing runId", body: base({ runId: undefined }), message: "runId: required", field: "runId" },
    { name: "numeric runId", body: base({ runId: 7 }), message: "runId: expected string", field: "runId" },
    { name: "empty runId", body: base({ runId: "" }), message: "runId: must not be empty", field: "runId" },
    { name: "missing messages", body: base({ messages: undefined }), message: "messages: required", field: "messages" },
    { name: "messages not an array", body: base({ messages: { 0: user("hi") } }), message: "messages: expected array", field: "messages" },
    { name: "a message that is not an object", body: base({ messages: [user("hi"), "hello"] }), message: "messages[1]: expected object", field: "messages[1]" },
    { name: "a message without role", body: base({ messages: [user("hi"), { id: "a1", content: "x" }] }), message: "messages[1].role: required", field: "messages[1].role" },
    {
      name: "an unknown role",
      body: base({ messages: [user("hi"), { id: "a1", role: "robot", content: "x" }] }),
      message: "messages[1].role: must be one of user, assistant, system, tool, developer, reasoning, activity",
      field: "messages[1].role",
    },
    { name: "user content missing", body: base({ messages: [{ id: "m", role: "user" }] }), message: "messages[0].content: required", field: "messages[0].content" },
    { name: "user content a number", body: base({ messages: [user(5)] }), message: "messages[0].content: expected string or array of content parts", field: "messages[0].content" },
    { name: "a content part that is not an object", body: base({ messages: [user(["hi"])] }), message: "messages[0].content[0]: expected object", field: "messages[0].content[0]" },
    {
      name: "an unknown content part type",
      body: base({ messages: [user([{ type: "html", html: "<b>" }])] }),
      message: "messages[0].content[0].type: must be one of text, binary, image, audio, video, document",
      field: "messages[0].content[0].type",
    },
    { name: "text part without text", body: base({ messages: [user([{ type: "text", value: "x" }])] }), message: "messages[0].content[0].text: expected string", field: "messages[0].content[0].text" },
    { name: "image part without source", body: base({ messages: [user([{ type: "image", url: IMAGE_URL }])] }), message: "messages[0].content[0].source: expected object", field: "messages[0].content[0].source" },
    {
      name: "image source of an unknown type",
      body: base({ messages: [user([{ type: "image", source: { type: "blob", value: "x" } }])] }),
      message: "messages[0].content[0].source.type: must be one of url, data, file",
      field: "messages[0].content[0].source.type",
    },
  ];
  it.each(rows)("$name -> $message", ({ body, message, field }) => {
    expect(parse(body)).toEqual(field === undefined ? { ok: false, status: 400, message } : { ok: false, status: 400, message, field });
  });

  // What the table does not read is checked by the full schema once the table passed.
  it.each([
    ["a message without id", base({ messages: [{ role: "user", content: "hi" }] }), "messages[0].id"],
    ["a tool without a name", base({ tools: [{ description: "d", parameters: {} }] }), "tools[0].name"],
    ["tool parameters that are not an object", base({ tools: [{ name: "t", description: "d", parameters: "x" }] }), "tools[0].parameters"],
    ["context without value", base({ context: [{ description: "d" }] }), "context[0].value"],
    ["a numeric parentRunId", base({ parentRunId: 1 }), "parentRunId"],
    ["an assistant tool call without arguments", base({ messages: [user("hi"), { id: "a", role: "assistant", toolCalls: [{ id: "c", type: "function", function: { name: "f" } }] }] }), "messages[1].toolCalls[0].function.arguments"],
    ["a tool message without toolCallId", base({ messages: [user("hi"), { id: "t", role: "tool", content: "r" }] }), "messages[1].toolCallId"],
    ["a tool message with an inline image", base({ messages: [user("hi"), { id: "t", role: "tool", toolCallId: "c", content: [{ type: "image", source: { type: "data", value: "AA", mimeType: "image/png" } }] }] }), "messages[1].content"],
    ["an unknown resume status", base({ resume: [{ interruptId: "i", status: "maybe" }] }), "resume[0].status"],
  ])("%s -> 400 naming %s", (_name, body, field) => {
    const result = parse(body);
    expect(result).toMatchObject({ ok: false, status: 400, field });
    expect(result.ok ? "" : result.message.startsWith(`${field}: `)).toBe(true);
  });
});

describe("parseRunAgentInput: accepted inputs", () => {
  it("accepts the spec's three request examples", () => {
    const plain = accepted(base({ state: {}, messages: [user("帮我查一下北京今天的天气")], tools: [], context: [], forwardedProps: {} }));
    expect(plain.messages).toEqual([{ id: "msg-001", role: "user", content: "帮我查一下北京今天的天气" }]);

    const multimodal = accepted(
      base({ runId: "run-002", messages: [user([{ type: "text", text: "这张图片里的内容是什么?" }, { type: "binary", mimeType: "image/png", url: IMAGE_URL }])] }),
    );
    expect(userMessageParts(multimodal).images).toEqual([{ url: IMAGE_URL, mimeType: "image/png" }]);

    const parameters = { type: "object", properties: { city: { type: "string", description: "城市名称" } }, required: ["city"] };
    const withTools = accepted(base({ runId: "run-003", tools: [{ name: "get_weather", description: "获取指定城市的天气信息", parameters }] }));
    expect(withTools.tools).toEqual([{ name: "get_weather", description: "获取指定城市的天气信息", parameters }]);
  });

  it("accepts what @ag-ui/client sends and ignores unknown top-level fields", () => {
    const input = accepted(
      base({
        protocolVersion: "1.0",
        parentRunId: "run-000",
        state: { count: 1 },
        forwardedProps: { locale: "zh-CN" },
        resume: [{ interruptId: "int-1", status: "resolved", payload: { approved: true } }],
        messages: [user([{ type: "text", text: "what is this?" }, { type: "image", source: { type: "url", value: IMAGE_URL, mimeType: "image/jpeg" } }])],
        somethingNew: { from: "a future client" },
      }),
    );
    expect(input).not.toHaveProperty("somethingNew");
    expect(input).toMatchObject({ protocolVersion: "1.0", parentRunId: "run-000", state: { count: 1 }, forwardedProps: { locale: "zh-CN" } });
    expect(input.resume).toEqual([{ interruptId: "int-1", status: "resolved", payload: { approved: true } }]);
  });

  it("accepts every AG-UI 1.0 role after the user message and turns optional nulls into absence", () => {
    const input = accepted(
      base({
        messages: [
          { ...user("hi"), name: null, encryptedValue: null },
          { id: "a1", role: "assistant", content: null, name: null, toolCalls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"北京\"}" } }] },
          { id: "t1", role: "tool", content: "sunny", toolCallId: "c1", error: null },
          { id: "s1", role: "system", content: "be brief" },
          { id: "d1", role: "developer", content: "internal" },
          { id: "r1", role: "reasoning", content: "thinking", encryptedValue: "opaque" },
          { id: "v1", role: "activity", activityType: "progress", content: { percent: 50 } },
        ],
      }),
    );
    expect(input.messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "system", "developer", "reasoning", "activity"]);
    expect(input.messages[0]).not.toHaveProperty("name", null);
    expect(input.messages[0]).toMatchObject({ name: undefined, encryptedValue: undefined });
    expect(input.messages[1]).toMatchObject({ content: undefined, toolCalls: [{ id: "c1" }] });
    expect(input.tools).toEqual([]);
    expect(input.context).toEqual([]);
  });
});

describe("userMessageParts", () => {
  it("normalizes both image forms and joins the text parts", () => {
    const input = accepted(
      base({
        messages: [
          user([
            { type: "text", text: "compare " },
            { type: "binary", mimeType: "image/png", url: "https://s.example/a.png?sig=1", filename: "a.png", id: "att-1" },
            { type: "text", text: "with this" },
            { type: "image", source: { type: "url", value: "https://s.example/b.webp?sig=2", mimeType: "image/webp" } },
          ]),
        ],
      }),
    );
    expect(userMessageParts(input)).toEqual({
      messageId: "msg-001",
      text: "compare with this",
      images: [
        { url: "https://s.example/a.png?sig=1", mimeType: "image/png", filename: "a.png" },
        { url: "https://s.example/b.webp?sig=2", mimeType: "image/webp" },
      ],
      fromUser: true,
    });
  });

  it("returns string content as the text with no images", () => {
    expect(userMessageParts(accepted(base()))).toEqual({ messageId: "msg-001", text: "hello", images: [], fromUser: true });
  });

  it("drops a null data field on a binary block instead of passing it on", () => {
    const input = accepted(base({ messages: [user([{ type: "binary", mimeType: "image/gif", url: IMAGE_URL, data: null }])] }));
    expect(input.messages[0]?.content).toEqual([{ type: "binary", mimeType: "image/gif", url: IMAGE_URL }]);
  });
});
