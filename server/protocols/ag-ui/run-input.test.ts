import { describe, expect, it } from "vitest";
import { parseRunAgentInput, userMessageParts } from "./run-input";
import { MAX_PAYLOAD_BYTES, RUN_INPUT_ERRORS as E } from "./run-input-rules";

const THREAD_ID = "550e8400-e29b-41d4-a716-446655440000";
const IMAGE_URL = "https://storage.example.com/agent-inputs/user-123/image.png?signature=xxx";

type Body = Record<string, unknown>;
const user = (content: unknown, id = "msg-001") => ({ id, role: "user", content });
const assistant = (id: string) => ({ id, role: "assistant", content: "ok" });
const base = (overrides: Body = {}): Body => ({
  threadId: THREAD_ID,
  runId: "run-001",
  state: {},
  messages: [user("hello")],
  tools: [],
  context: [],
  forwardedProps: {},
  ...overrides,
});
const withContent = (...parts: unknown[]) => base({ messages: [user(parts)] });
const text = (value: string) => ({ type: "text", text: value });
const binary = (fields: Body) => ({ type: "binary", ...fields });
const image = (source: Body) => ({ type: "image", source });
const parse = (body: Body | string) => parseRunAgentInput(typeof body === "string" ? body : JSON.stringify(body));

// Every row of the spec's validation table, each with the exact message and the field it names.
const tableRows: Array<{ name: string; body: Body | string; status?: number; message: string; field?: string }> = [
  { name: "malformed JSON", body: "{\"threadId\":", message: E.invalidJson },
  { name: "empty body", body: "", message: E.invalidJson },
  { name: "threadId not a UUID", body: base({ threadId: "thread-1" }), message: E.threadId, field: "threadId" },
  { name: "threadId without hyphens", body: base({ threadId: THREAD_ID.replaceAll("-", "") }), message: E.threadId, field: "threadId" },
  { name: "threadId empty", body: base({ threadId: "" }), message: E.threadId, field: "threadId" },
  { name: "runId of 129 characters", body: base({ runId: "r".repeat(129) }), message: E.runIdLength, field: "runId" },
  {
    name: "201 messages",
    body: base({ messages: [user("hi"), ...Array.from({ length: 200 }, (_, i) => assistant(`a${i}`))] }),
    message: E.messagesLimit,
    field: "messages",
  },
  { name: "user text of 10,001 characters", body: base({ messages: [user("x".repeat(10_001))] }), message: E.userTextLimit, field: "messages[0].content" },
  {
    name: "user text blocks summing to 10,001 characters",
    body: withContent(text("x".repeat(5_000)), text("y".repeat(5_001))),
    message: E.userTextLimit,
    field: "messages[0].content",
  },
  { name: "no messages", body: base({ messages: [] }), message: E.exactlyOneUser, field: "messages" },
  { name: "no user message", body: base({ messages: [assistant("a1")] }), message: E.exactlyOneUser, field: "messages" },
  { name: "two user messages", body: base({ messages: [user("a", "m1"), user("b", "m2")] }), message: E.exactlyOneUser, field: "messages" },
  { name: "user message not first", body: base({ messages: [assistant("a1"), user("hi")] }), message: E.firstMustBeUser, field: "messages[0].role" },
  {
    name: "binary with a non-image mimeType",
    body: withContent(binary({ mimeType: "application/pdf", url: IMAGE_URL })),
    message: E.binaryMimeType,
    field: "messages[0].content[0].mimeType",
  },
  { name: "binary without mimeType", body: withContent(binary({ url: IMAGE_URL })), message: E.binaryMimeType, field: "messages[0].content[0].mimeType" },
  { name: "binary with mimeType parameters", body: withContent(binary({ mimeType: "image/png; q=1", url: IMAGE_URL })), message: E.binaryMimeType, field: "messages[0].content[0].mimeType" },
  { name: "binary without url", body: withContent(binary({ mimeType: "image/png" })), message: E.binaryUrl, field: "messages[0].content[0].url" },
  { name: "binary with a blank url", body: withContent(binary({ mimeType: "image/png", url: "  " })), message: E.binaryUrl, field: "messages[0].content[0].url" },
  // Table order: the url rule comes before the data rule, so data without a url fails on the url.
  { name: "binary with data and no url", body: withContent(binary({ mimeType: "image/png", data: "iVBORw0KGgo=" })), message: E.binaryUrl, field: "messages[0].content[0].url" },
  {
    name: "binary with url and data",
    body: withContent(binary({ mimeType: "image/png", url: IMAGE_URL, data: "iVBORw0KGgo=" })),
    message: E.binaryData,
    field: "messages[0].content[0].data",
  },
  {
    name: "binary with a data: url",
    body: withContent(binary({ mimeType: "image/png", url: "data:image/png;base64,iVBORw0KGgo=" })),
    message: E.binaryData,
    field: "messages[0].content[0].url",
  },
  {
    name: "AG-UI image with a non-image mimeType",
    body: withContent(image({ type: "url", value: IMAGE_URL, mimeType: "text/html" })),
    message: E.binaryMimeType,
    field: "messages[0].content[0].source.mimeType",
  },
  { name: "AG-UI image url source without mimeType", body: withContent(image({ type: "url", value: IMAGE_URL })), message: E.binaryMimeType, field: "messages[0].content[0].source.mimeType" },
  { name: "AG-UI audio part", body: withContent({ type: "audio", source: { type: "url", value: IMAGE_URL, mimeType: "audio/mpeg" } }), message: E.binaryMimeType, field: "messages[0].content[0].type" },
  { name: "AG-UI image url source without value", body: withContent(image({ type: "url", mimeType: "image/png" })), message: E.binaryUrl, field: "messages[0].content[0].source.value" },
  { name: "AG-UI image file source", body: withContent(image({ type: "file", value: "file-abc", mimeType: "image/png" })), message: E.binaryUrl, field: "messages[0].content[0].source.type" },
  { name: "AG-UI image data source", body: withContent(image({ type: "data", value: "iVBORw0KGgo=", mimeType: "image/png" })), message: E.binaryData, field: "messages[0].content[0].source.type" },
  {
    name: "AG-UI image url source with a data: url",
    body: withContent(image({ type: "url", value: "data:image/png;base64,AAAA", mimeType: "image/png" })),
    message: E.binaryData,
    field: "messages[0].content[0].source.value",
  },
];

describe("parseRunAgentInput: the spec's validation table", () => {
  it.each(tableRows)("$name -> $message", ({ body, status = 400, message, field }) => {
    const result = parse(body);
    expect(result).toEqual(field === undefined ? { ok: false, status, message } : { ok: false, status, message, field });
  });
});

describe("parseRunAgentInput: the table's order decides between overlapping failures", () => {
  const rows: Array<{ name: string; body: Body | string; message: string }> = [
    { name: "bad threadId and long runId", body: base({ threadId: "x", runId: "r".repeat(200) }), message: E.threadId },
    { name: "long runId and 201 messages", body: base({ runId: "r".repeat(200), messages: Array.from({ length: 201 }, (_, i) => assistant(`a${i}`)) }), message: E.runIdLength },
    { name: "201 messages without a user message", body: base({ messages: Array.from({ length: 201 }, (_, i) => assistant(`a${i}`)) }), message: E.messagesLimit },
    { name: "long user text in one of two user messages", body: base({ messages: [user("a", "m1"), user("x".repeat(10_001), "m2")] }), message: E.userTextLimit },
    { name: "two user messages, assistant first", body: base({ messages: [assistant("a1"), user("a", "m1"), user("b", "m2")] }), message: E.exactlyOneUser },
    { name: "assistant first and a non-image binary", body: base({ messages: [assistant("a1"), user([binary({ mimeType: "text/plain" })])] }), message: E.firstMustBeUser },
    // Rule by rule across parts: a later part's mimeType failure beats an earlier part's missing url.
    { name: "missing url then non-image part", body: withContent(binary({ mimeType: "image/png" }), binary({ mimeType: "text/plain", url: IMAGE_URL })), message: E.binaryMimeType },
    { name: "data part then missing url", body: withContent(image({ type: "data", value: "AA", mimeType: "image/png" }), binary({ mimeType: "image/png" })), message: E.binaryUrl },
    { name: "a table rule beats a structural error elsewhere", body: base({ threadId: "x", tools: [{ name: 42 }] }), message: E.threadId },
    { name: "a bad message later does not hide a bad threadId", body: base({ threadId: "x", messages: [user("hi"), { role: "robot" }] }), message: E.threadId },
  ];
  it.each(rows)("$name -> $message", ({ body, message }) => {
    expect(parse(body)).toMatchObject({ ok: false, status: 400, message });
  });

  it("checks the size before anything else, even on malformed JSON", () => {
    expect(parse("{".repeat(MAX_PAYLOAD_BYTES + 1))).toEqual({ ok: false, status: 413, message: E.payloadTooLarge });
  });
});

describe("parseRunAgentInput: limits are inclusive and counted the way the spec counts", () => {
  // Pads forwardedProps so the serialized body is exactly `bytes` UTF-8 bytes long.
  const bodyOfBytes = (bytes: number, unit = "x") => {
    const empty = JSON.stringify(base({ forwardedProps: { pad: "" } }));
    const room = bytes - Buffer.byteLength(empty, "utf8");
    const unitBytes = Buffer.byteLength(unit, "utf8");
    const pad = unit.repeat(Math.floor(room / unitBytes)) + "x".repeat(room % unitBytes);
    const raw = JSON.stringify(base({ forwardedProps: { pad } }));
    expect(Buffer.byteLength(raw, "utf8")).toBe(bytes);
    return raw;
  };

  it("accepts a body of exactly 262,144 bytes", () => {
    expect(parseRunAgentInput(bodyOfBytes(MAX_PAYLOAD_BYTES))).toMatchObject({ ok: true });
  });

  it("rejects a body of 262,145 bytes with 413", () => {
    expect(parseRunAgentInput(bodyOfBytes(MAX_PAYLOAD_BYTES + 1))).toEqual({ ok: false, status: 413, message: E.payloadTooLarge });
  });

  it("measures UTF-8 bytes, not characters", () => {
    const raw = bodyOfBytes(MAX_PAYLOAD_BYTES + 2, "界");
    expect(raw.length).toBeLessThan(MAX_PAYLOAD_BYTES);
    expect(parseRunAgentInput(raw)).toMatchObject({ status: 413 });
    expect(parseRunAgentInput(bodyOfBytes(MAX_PAYLOAD_BYTES, "😀"))).toMatchObject({ ok: true });
  });

  it.each([
    ["a runId of 128 characters", base({ runId: "r".repeat(128) })],
    ["a runId of 128 emoji (code points, not UTF-16 units)", base({ runId: "😀".repeat(128) })],
    ["200 messages", base({ messages: [user("hi"), ...Array.from({ length: 199 }, (_, i) => assistant(`a${i}`))] })],
    ["user text of 10,000 characters", base({ messages: [user("x".repeat(10_000))] })],
    ["user text of 10,000 emoji", base({ messages: [user("😀".repeat(10_000))] })],
    ["text blocks summing to 10,000", withContent(text("x".repeat(4_000)), text("y".repeat(6_000)))],
    ["an upper-case UUID", base({ threadId: THREAD_ID.toUpperCase() })],
  ])("accepts %s", (_name, body) => {
    expect(parse(body)).toMatchObject({ ok: true });
  });

  it("rejects a runId of 129 emoji", () => {
    expect(parse(base({ runId: "😀".repeat(129) }))).toMatchObject({ message: E.runIdLength });
  });
});

describe("ids on POST /api/v1/ag-ui (the conversation reading)", () => {
  const conversation = (body: Body) => parseRunAgentInput(JSON.stringify(body), { conversation: true });
  const failureOf = (body: Body) => {
    const result = conversation(body);
    return result.ok ? null : { status: result.status, field: result.field };
  };

  it("takes any string AG-UI allows as thread, run, message and tool call id", () => {
    const ids = base({
      threadId: "thread_3f2a9c0d",
      runId: "run:1/é",
      messages: [
        user("hello", "msg 1"),
        { id: "lc_run--abc", role: "assistant", toolCalls: [{ id: "toolu_01ABC", type: "function", function: { name: "lookup", arguments: "{}" } }] },
        { id: "t-1", role: "tool", toolCallId: "toolu_01ABC", content: "ok" },
        user("again", "用户消息"),
      ],
    });
    const parsed = conversation(ids);
    expect(parsed.ok && parsed.input.threadId).toBe("thread_3f2a9c0d");
    // The seed door keeps spec/agent-run-input.md's UUID rule.
    expect(parse(base({ threadId: "thread_3f2a9c0d" }))).toMatchObject({ ok: false, message: E.threadId });
  });

  it("refuses ids that are empty, too long, or hold what cannot be stored as sent, naming the field", () => {
    expect(failureOf(base({ threadId: "" }))).toEqual({ status: 400, field: "threadId" });
    expect(failureOf(base({ threadId: "t".repeat(257) }))).toEqual({ status: 400, field: "threadId" });
    expect(failureOf(base({ threadId: "t".repeat(256) }))).toBeNull();
    expect(failureOf(base({ threadId: "tab\there" }))).toEqual({ status: 400, field: "threadId" });
    expect(failureOf(base({ runId: "run\u0000" }))).toEqual({ status: 400, field: "runId" });
    expect(failureOf(base({ messages: [user("hi", "\ud83d")] }))).toEqual({ status: 400, field: "messages[0].id" });
    expect(failureOf(base({ messages: [user("hi", "😀 ok")] }))).toBeNull();
    const call = (id: string) => ({ id: "a1", role: "assistant", toolCalls: [{ id, type: "function", function: { name: "f", arguments: "{}" } }] });
    expect(failureOf(base({ messages: [call("c\u007f"), user("hi")] }))).toEqual({ status: 400, field: "messages[0].toolCalls[0].id" });
    expect(failureOf(base({ messages: [{ id: "t1", role: "tool", toolCallId: "x".repeat(300), content: "ok" }, user("hi")] }))).toEqual({
      status: 400,
      field: "messages[0].toolCallId",
    });
  });
});

describe("AG-UI document parts", () => {
  const document = (mimeType: unknown, value: unknown = IMAGE_URL.replace("image.png", "report.pdf")) => ({ type: "document", source: { type: "url", value, mimeType } });

  it("name an uploaded document by URL, like an image", () => {
    const parsed = parse(withContent(text("read this"), document("application/pdf"), document("text/csv")));
    if (!parsed.ok) throw new Error(parsed.message);
    expect(userMessageParts(parsed.input).images.map((i) => i.mimeType)).toEqual(["application/pdf", "text/csv"]);
  });

  it("must name a document type, by URL, never inline data", () => {
    expect(parse(withContent(document("application/x-msdownload")))).toMatchObject({ ok: false, status: 400, message: E.documentMimeType, field: "messages[0].content[0].source.mimeType" });
    expect(parse(withContent(document("application/pdf", "data:application/pdf;base64,JVBERi0=")))).toMatchObject({ ok: false, message: E.binaryData });
  });
});
