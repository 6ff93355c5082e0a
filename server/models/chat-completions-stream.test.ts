import http from "node:http";
import type { AddressInfo } from "node:net";
import { APICallError, type LanguageModelV4CallOptions, type LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChatCompletionsStreamer } from "./chat-completions-stream";

// The lean OpenAI-compatible reader against a real HTTP server whose answers each test
// scripts byte by byte: split lines and characters, tool calls, errors, early ends.

type Handler = (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void;
let handler: Handler = (_req, _body, res) => res.end();
let server: http.Server;
let baseURL: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => handler(req, body, res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const options = (extra: Partial<LanguageModelV4CallOptions> = {}): LanguageModelV4CallOptions => ({
  prompt: [
    { role: "system", content: "Be brief." },
    { role: "user", content: [{ type: "text", text: "Hello" }] },
  ],
  ...extra,
});

const chunk = (delta: object, finish: string | null = null) => `data: ${JSON.stringify({ id: "c1", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const usage = `data: ${JSON.stringify({ id: "c1", choices: [], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } })}\n\n`;

/** Answers with these raw pieces, each written (and flushed) on its own. */
function sse(pieces: (string | Buffer)[]): Handler {
  return (_req, _body, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    const next = (i: number) => {
      if (i === pieces.length) return res.end();
      res.write(pieces[i]!, () => setImmediate(() => next(i + 1)));
    };
    next(0);
  };
}

async function collect(extra: Partial<LanguageModelV4CallOptions> = {}, apiKey?: string): Promise<LanguageModelV4StreamPart[]> {
  const stream = await createChatCompletionsStreamer({ baseURL, apiKey, modelId: "m1" })(options(extra));
  const parts: LanguageModelV4StreamPart[] = [];
  await stream.read((p) => parts.push(p));
  return parts;
}

const texts = (parts: LanguageModelV4StreamPart[]) => parts.flatMap((p) => (p.type === "text-delta" ? [p.delta] : []));

describe("chat completions stream", () => {
  it("sends the SDK's request body and streams text with usage, however the bytes are split", async () => {
    let request: { headers: http.IncomingHttpHeaders; body: Record<string, unknown> } | null = null;
    const euro = Buffer.from(chunk({ content: "costs 5€" }));
    const cut = euro.indexOf(Buffer.from("€")) + 1; // inside the three bytes of €
    const answer = sse([chunk({ role: "assistant" }), "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"It \"}", ",\"finish_reason\":null}]}\r\n\r\n", euro.subarray(0, cut), euro.subarray(cut), ": keep-alive\n\n", chunk({}, "stop"), usage, "data: [DONE]\n\n"]);
    handler = (req, body, res) => {
      request = { headers: req.headers, body: JSON.parse(body) as Record<string, unknown> };
      answer(req, body, res);
    };
    const parts = await collect({ temperature: 0.2, maxOutputTokens: 50 }, "sk-test");
    expect(texts(parts).join("")).toBe("It costs 5€");
    expect(parts.map((p) => p.type)).toEqual(["text-start", "text-delta", "text-delta", "text-end", "finish"]);
    const finish = parts.at(-1) as Extract<LanguageModelV4StreamPart, { type: "finish" }>;
    expect(finish.usage.inputTokens.total).toBe(7);
    expect(finish.usage.outputTokens.total).toBe(3);
    expect(finish.finishReason.unified).toBe("stop");
    expect(request!.headers.authorization).toBe("Bearer sk-test");
    expect(request!.body).toMatchObject({
      model: "m1",
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.2,
      max_tokens: 50,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hello" },
      ],
    });
  });

  it("streams the model's thinking (reasoning_content or reasoning) before its answer, and counts its tokens", async () => {
    const reasoningUsage = `data: ${JSON.stringify({ id: "c1", choices: [], usage: { prompt_tokens: 7, completion_tokens: 9, total_tokens: 16, completion_tokens_details: { reasoning_tokens: 6 } } })}\n\n`;
    handler = sse([chunk({ role: "assistant" }), chunk({ reasoning_content: "Check the " }), chunk({ reasoning: "calendar." }), chunk({ content: "Free." }), chunk({}, "stop"), reasoningUsage, "data: [DONE]\n\n"]);
    const parts = await collect();
    expect(parts.map((p) => p.type)).toEqual(["reasoning-start", "reasoning-delta", "reasoning-delta", "reasoning-end", "text-start", "text-delta", "text-end", "finish"]);
    expect(parts.flatMap((p) => (p.type === "reasoning-delta" ? [p.delta] : [])).join("")).toBe("Check the calendar.");
    const finish = parts.at(-1) as Extract<LanguageModelV4StreamPart, { type: "finish" }>;
    expect(finish.usage.outputTokens.reasoning).toBe(6);

    // Thinking that leads to a tool call ends where the call begins.
    handler = sse([chunk({ reasoning_content: "Need a tool." }), chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "t", arguments: "{}" } }] }), chunk({}, "tool_calls"), "data: [DONE]\n\n"]);
    const withCall = await collect({ tools: [{ type: "function", name: "t", inputSchema: { type: "object" } }] });
    expect(withCall.map((p) => p.type).slice(0, 4)).toEqual(["reasoning-start", "reasoning-delta", "reasoning-end", "tool-input-start"]);
  });

  it("assembles streamed tool calls, also when the name comes after the id", async () => {
    handler = sse([
      chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { arguments: "" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { name: "project_cli", arguments: '{"module":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"calendar"}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: "call_2", type: "function", function: { name: "other", arguments: "{}" } }] }),
      chunk({}, "tool_calls"),
      "data: [DONE]\n\n",
    ]);
    const parts = await collect({ tools: [{ type: "function", name: "project_cli", inputSchema: { type: "object" } }] });
    const calls = parts.filter((p) => p.type === "tool-call");
    expect(calls).toEqual([
      expect.objectContaining({ toolCallId: "call_1", toolName: "project_cli", input: '{"module":"calendar"}' }),
      expect.objectContaining({ toolCallId: "call_2", toolName: "other", input: "{}" }),
    ]);
    expect(parts.filter((p) => p.type === "tool-input-start").map((p) => (p as { toolName: string }).toolName)).toEqual(["project_cli", "other"]);
  });

  it("reports a chunk that is not JSON, an error chunk and a missing finish reason as stream errors", async () => {
    handler = sse([chunk({ content: "Hi" }), "data: {not json\n\n"]);
    let parts = await collect();
    expect(parts.filter((p) => p.type === "error").map((p) => String((p as { error: Error }).error.message))).toEqual([expect.stringContaining("not JSON")]);

    handler = sse([`data: ${JSON.stringify({ error: { message: "overloaded", type: "server_error" } })}\n\n`]);
    parts = await collect();
    expect(parts.find((p) => p.type === "error")).toEqual({ type: "error", error: { message: "overloaded", type: "server_error" } });

    handler = sse([chunk({ content: "cut short" })]);
    parts = await collect();
    expect(parts.filter((p) => p.type === "error").map((p) => String((p as { error: Error }).error.message))).toEqual(["Response stream ended without a finish reason."]);
  });

  it("fails to open with an APICallError that says whether a retry may help", async () => {
    handler = (_req, _body, res) => res.writeHead(429, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "slow down" } }));
    const limited = await collect().catch((e: unknown) => e);
    expect(APICallError.isInstance(limited)).toBe(true);
    expect(limited).toMatchObject({ statusCode: 429, isRetryable: true, message: "slow down" });

    handler = (_req, _body, res) => res.writeHead(401).end("no");
    await expect(collect()).rejects.toMatchObject({ statusCode: 401, isRetryable: false, message: "The model server answered HTTP 401" });

    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await createChatCompletionsStreamer({ baseURL: `http://127.0.0.1:${port}/v1`, modelId: "m1" })(options()).catch((e: unknown) => e);
    expect(unreachable).toMatchObject({ isRetryable: true });
    expect(APICallError.isInstance(unreachable)).toBe(true);
  });

  it("fails the step, retryably, when the server drops the connection mid-answer", async () => {
    handler = (_req, _body, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(chunk({ content: "Half" }), () => res.destroy());
    };
    const stream = await createChatCompletionsStreamer({ baseURL, modelId: "m1" })(options());
    const parts: LanguageModelV4StreamPart[] = [];
    await expect(stream.read((p) => parts.push(p))).rejects.toMatchObject({ isRetryable: true, message: "The model server closed the stream early" });
    expect(texts(parts)).toEqual(["Half"]);
  });

  it("ends the request when the run is aborted mid-stream", async () => {
    let closed!: Promise<void>;
    handler = (req, _body, res) => {
      closed = new Promise((resolve) => res.once("close", () => resolve()));
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(chunk({ content: "Thinking" }));
    };
    const controller = new AbortController();
    const stream = await createChatCompletionsStreamer({ baseURL, modelId: "m1" })(options({ abortSignal: controller.signal }));
    const parts: LanguageModelV4StreamPart[] = [];
    const reading = stream.read((p) => {
      parts.push(p);
      if (p.type === "text-delta") controller.abort("cancelled");
    });
    await expect(reading).rejects.toBeDefined();
    await closed;
    expect(texts(parts)).toEqual(["Thinking"]);
  });

  it("fails the step with the consumer's error, not the process, when handling a part throws", async () => {
    handler = sse([chunk({ content: "One" }), chunk({ content: " two" }, "stop")]);
    const stream = await createChatCompletionsStreamer({ baseURL, modelId: "m1" })(options());
    const seen: string[] = [];
    const reading = stream.read((p) => {
      if (p.type !== "text-delta") return;
      seen.push(p.delta);
      throw new Error("the loop could not take this part");
    });
    await expect(reading).rejects.toThrow("the loop could not take this part");
    expect(seen).toEqual(["One"]);
  });

  it("keeps a burst's parts in order across many reads of many streams at once", async () => {
    const words = Array.from({ length: 300 }, (_, i) => `w${i} `);
    handler = (_req, _body, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(words.map((w) => chunk({ content: w })).join("") + chunk({}, "stop") + "data: [DONE]\n\n");
    };
    const answers = await Promise.all(Array.from({ length: 8 }, () => collect()));
    for (const parts of answers) {
      expect(texts(parts)).toEqual(words);
      expect(parts.at(-1)).toMatchObject({ type: "finish", finishReason: { unified: "stop" } });
    }
  });
});
