import { describe, expect, it } from "vitest";
import { parseRunAgentInput } from "../ag-ui/run-input";
import { MAX_PAYLOAD_BYTES } from "../ag-ui/run-input-rules";
import { splitInput } from "./input-items";
import { parseAgentRequest, type ParseAgentRequestResult } from "./request";
import { generationParams, guessImageMimeType, toRunAgentInput } from "./run-input";

const SESSION = "0b8f9a52-3c1d-4e7a-9f42-5d6c7b8a9e10";
const user = (text: string, extra: Record<string, unknown> = {}) => ({ role: "user", type: "message", content: [{ type: "text", text }], ...extra });
const parse = (body: unknown) => parseAgentRequest(JSON.stringify(body));

function ok(result: ParseAgentRequestResult) {
  if (!result.ok) throw new Error(`expected a valid request, got: ${result.message}`);
  return result;
}

describe("parseAgentRequest", () => {
  it("accepts the spec's example and defaults stream to true and n to absent", () => {
    const { request } = ok(parse({ input: [user("描述这张图片")], stream: true, model: "gpt-4-vision" }));
    expect(request).toMatchObject({ stream: true, model: "gpt-4-vision" });
    expect(ok(parse({ input: [user("hi")] })).request.stream).toBe(true);
  });

  it("accepts what a Python client sends: every unset field as null, echoed message envelopes", () => {
    const body = {
      input: [
        {
          id: "msg_1",
          object: "message",
          type: "message",
          status: "created",
          role: "user",
          content: [{ type: "text", text: "hi", object: "content", index: null, delta: false, msg_id: null, status: null, sequence_number: null, error: null }],
          code: null,
          message: null,
          usage: null,
          metadata: null,
          sequence_number: null,
          error: null,
        },
      ],
      stream: false,
      id: null,
      model: null,
      top_p: null,
      temperature: null,
      frequency_penalty: null,
      presence_penalty: null,
      max_tokens: null,
      stop: null,
      n: 1,
      seed: null,
      tools: null,
      session_id: null,
      response_id: null,
    };
    const { request } = ok(parse(body));
    expect(request.stream).toBe(false);
    expect(request.session_id).toBeUndefined();
  });

  it.each<[string, unknown, string]>([
    ["an unknown top-level field", { input: [user("x")], foo: 1 }, "foo"],
    ["an unknown message field", { input: [user("x", { colour: "red" })] }, "input[0].colour"],
    ["a blank session_id", { input: [user("x")], session_id: "  " }, "session_id"],
    ["an over-long session_id", { input: [user("x")], session_id: "s".repeat(257) }, "session_id"],
    ["n of 2 (a response carries one answer)", { input: [user("x")], n: 2 }, "n"],
    ["n above 5", { input: [user("x")], n: 6 }, "n"],
    ["a fractional max_tokens", { input: [user("x")], max_tokens: 1.5 }, "max_tokens"],
    ["a temperature out of range", { input: [user("x")], temperature: 3 }, "temperature"],
    ["an empty input", { input: [] }, "input"],
    ["an unknown content type", { input: [{ role: "user", content: [{ type: "video", url: "x" }] }] }, "input[0].content[0].type"],
    ["a blank image_url", { input: [{ role: "user", content: [{ type: "image", image_url: " " }] }] }, "input[0].content[0].image_url"],
    ["a blank image url", { input: [{ role: "user", content: [{ type: "image", image_url: " " }] }] }, "input[0].content[0].image_url"],
    ["a non-function tool", { input: [user("x")], tools: [{ type: "retrieval", function: { name: "f", description: "d", parameters: {} } }] }, "tools[0].type"],
    ["a tool without a name", { input: [user("x")], tools: [{ description: "d", parameters: {} }] }, "tools[0].name"],
    ["a response_id over 128 characters", { input: [user("x")], response_id: "r".repeat(129) }, "response_id"],
    ["an unknown multitask_strategy", { input: [user("x")], multitask_strategy: "rollback" }, "multitask_strategy"],
  ])("rejects %s with 400 naming the field", (_name, body, field) => {
    const result = parse(body);
    expect(result).toMatchObject({ ok: false, status: 400, field });
    expect(!result.ok && result.message.startsWith(`${field}: `)).toBe(true);
  });

  it("rejects a body that is not JSON, not an object, or too large", () => {
    expect(parseAgentRequest("{")).toEqual({ ok: false, status: 400, message: "AgentRequest body is not valid JSON" });
    expect(parseAgentRequest("[]")).toEqual({ ok: false, status: 400, message: "AgentRequest must be a JSON object" });
    expect(parseAgentRequest(" ".repeat(MAX_PAYLOAD_BYTES + 1))).toMatchObject({ ok: false, status: 413 });
  });
});

describe("toRunAgentInput", () => {
  it("makes the last user message the run's message, with images as binary blocks, and validates as RunAgentInput", () => {
    const { request } = ok(
      parse({
        input: [
          user("first turn"),
          { role: "assistant", content: [{ type: "text", text: "an answer" }] },
          {
            id: "msg_last",
            role: "user",
            content: [
              { type: "text", text: "what is " },
              { type: "image", image_url: "https://files.example.com/a/photo.JPG?X-Amz-Signature=abc" },
              { type: "data", data: { k: 1 } },
            ],
          },
        ],
        session_id: SESSION,
        tools: [
          { type: "function", function: { name: "get_weather", description: "Weather", parameters: { type: "object", properties: {} } } },
          { name: "plain_tool", description: "A dict tool", parameters: { type: "object", properties: {}, required: [] } },
        ],
      }),
    );
    const split = splitInput(request.input, true);
    if (!split.ok) throw new Error(split.message);
    expect(split.turns.userIndex).toBe(2);
    const { input } = toRunAgentInput(request, split.turns, { threadId: SESSION, runId: "response_x", newId: () => "unused" });
    expect(input.messages).toEqual([
      {
        id: "msg_last",
        role: "user",
        content: [
          { type: "text", text: "what is " },
          { type: "binary", mimeType: "image/jpeg", url: "https://files.example.com/a/photo.JPG?X-Amz-Signature=abc" },
          { type: "text", text: '{"k":1}' },
        ],
      },
    ]);
    expect(input.tools).toEqual([
      { name: "get_weather", description: "Weather", parameters: { type: "object", properties: {} } },
      { name: "plain_tool", description: "A dict tool", parameters: { type: "object", properties: {}, required: [] } },
    ]);
    const parsed = parseRunAgentInput(JSON.stringify(input));
    expect(parsed.ok).toBe(true);
  });

  it("guesses an image's type from its extension, image/png otherwise", () => {
    expect(guessImageMimeType("https://x.test/p/cat.webp?sig=1")).toBe("image/webp");
    expect(guessImageMimeType("https://x.test/p/cat.gif#frag")).toBe("image/gif");
    expect(guessImageMimeType("https://x.test/p/cat")).toBe("image/png");
    expect(guessImageMimeType("/relative/cat.jpeg")).toBe("image/jpeg");
  });
});

describe("generationParams", () => {
  it("passes the sampling parameters in the engine's names and leaves out what is unset", () => {
    const { request } = ok(parse({ input: [user("x")], model: "m", top_p: 0.9, temperature: 0.2, max_tokens: 64, stop: "END", seed: 7, presence_penalty: 0.5, n: 1 }));
    expect(generationParams(request)).toEqual({ model: "m", topP: 0.9, temperature: 0.2, maxTokens: 64, stop: ["END"], seed: 7, presencePenalty: 0.5 });
    expect(generationParams(ok(parse({ input: [user("x")], stop: ["a", "b"] })).request)).toEqual({ stop: ["a", "b"] });
  });
});
