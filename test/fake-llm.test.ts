import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { cosineSimilarity, embedMany, generateText, isStepCount, jsonSchema, streamText, tool } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeLlm, type FakeLlm } from "./fake-llm";

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(() => llm.close());

const model = () => createOpenAICompatible({ name: "fake", baseURL: llm.baseUrl, apiKey: llm.apiKey, includeUsage: true }).chatModel(llm.model);
const echoTool = (seen: unknown[]) =>
  tool({ inputSchema: jsonSchema<unknown>({ type: "object" }), execute: async (input) => (seen.push(input), { ok: true }) });

describe("the fake OpenAI-compatible LLM", () => {
  it("echoes the user word by word, with usage", async () => {
    const deltas: string[] = [];
    const result = streamText({ model: model(), prompt: "one two three" });
    for await (const part of result.stream) if (part.type === "text-delta") deltas.push(part.text);
    expect(deltas).toEqual(["You ", "said: ", "one ", "two ", "three"]);
    expect((await result.totalUsage).outputTokens).toBe(5);
  });

  it("thinks before its answer with [[think]], as reasoning_content the AI SDK reads as reasoning", async () => {
    const result = streamText({ model: model(), prompt: "[[think:Plan the reply first.]] hi" });
    const types: string[] = [];
    for await (const part of result.stream) if (part.type.startsWith("reasoning") || part.type === "text-delta") types.push(part.type);
    expect(await result.reasoningText).toBe("Plan the reply first.");
    expect(await result.text).toBe("You said: hi");
    expect(types.indexOf("reasoning-end")).toBeLessThan(types.indexOf("text-delta"));
    expect((await result.totalUsage).outputTokenDetails.reasoningTokens).toBe(4);
  });

  it("calls the scripted tools in order, then summarises the last result", async () => {
    const seen: unknown[] = [];
    const result = streamText({
      model: model(),
      prompt: 'check [[tool:calendar.read {"mode":"day","date":"2026-01-02"}]] [[call:other {"x":[1,2]}]]',
      tools: { project_cli: echoTool(seen), other: echoTool(seen) },
      stopWhen: isStepCount(5),
    });
    expect(await result.text).toBe('Tool said: {"ok":true}');
    expect(seen).toEqual([{ module: "calendar", method: "read", input: { mode: "day", date: "2026-01-02" } }, { x: [1, 2] }]);
  });

  it("paces tokens with [[delay]]", async () => {
    const started = Date.now();
    await streamText({ model: model(), prompt: "[[delay:40]] a b c" }).consumeStream();
    expect(Date.now() - started).toBeGreaterThanOrEqual(5 * 40 - 20);
  });

  it("fails with [[fail]] and answers without streaming too", async () => {
    await expect(generateText({ model: model(), prompt: "[[fail]]", maxRetries: 0 })).rejects.toMatchObject({ statusCode: 500 });
    expect((await generateText({ model: model(), prompt: "plain" })).text).toBe("You said: plain");
  });

  it("hangs with [[hang]] until the request is aborted", async () => {
    const controller = new AbortController();
    const deltas: string[] = [];
    const result = streamText({ model: model(), prompt: "[[hang]]", abortSignal: controller.signal, onError: () => {} });
    for await (const part of result.stream) {
      if (part.type === "text-delta") {
        deltas.push(part.text);
        controller.abort();
      }
    }
    expect(deltas).toEqual(["Thinking"]);
  });

  it("shows what it was sent with [[show:messages]] and [[show:system]]", async () => {
    const messages = await generateText({
      model: model(),
      messages: [
        { role: "user", content: "earlier" },
        { role: "assistant", content: "reply" },
        { role: "user", content: "[[show:messages]]" },
      ],
    });
    expect(messages.text).toBe("user: earlier\nassistant: reply\nuser: [[show:messages]]");
    expect((await generateText({ model: model(), instructions: "Be brief.", prompt: "[[show:system]]" })).text).toBe("Be brief.");
  });

  it("embeds texts so that those sharing more words are more alike, and reranks by the query's words", async () => {
    const embedder = createOpenAICompatible({ name: "fake", baseURL: llm.baseUrl, apiKey: llm.apiKey }).embeddingModel("fake-embedding");
    const { embeddings } = await embedMany({ model: embedder, values: ["zeppelin budget", "the quarterly zeppelin budget review", "zeppelin flights over the lake", "sourdough bread"] });
    const [query, two, one, none] = embeddings;
    expect(cosineSimilarity(query!, two!)).toBeGreaterThan(cosineSimilarity(query!, one!));
    expect(cosineSimilarity(query!, one!)).toBeGreaterThan(cosineSimilarity(query!, none!));
    const res = await fetch(`${llm.baseUrl}/rerank`, {
      method: "POST",
      headers: { authorization: `Bearer ${llm.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "fake-rerank", query: "zeppelin flights", documents: ["bread", "zeppelin budget", "zeppelin flights"], top_n: 2 }),
    });
    expect(await res.json()).toEqual({ model: "fake-rerank", results: [{ index: 2, relevance_score: 1 }, { index: 1, relevance_score: 0.5 }] });
  });

  it("rejects a wrong API key", async () => {
    const wrong = createOpenAICompatible({ name: "fake", baseURL: llm.baseUrl, apiKey: "nope" }).chatModel(llm.model);
    await expect(generateText({ model: wrong, prompt: "hi", maxRetries: 0 })).rejects.toMatchObject({ statusCode: 401 });
  });
});
