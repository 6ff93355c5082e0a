// A small OpenAI-compatible chat completions server for tests, scripted by the user's text.
// By default it answers "You said: <text>" word by word. Directives in the latest user
// message change that (they are removed from the echoed text):
//   [[delay:200]]                  200 ms between tokens (text and tool-argument chunks)
//   [[tool:calendar.read {...}]]   call project_cli with {module, method, input} first
//   [[call:get_weather {...}]]     call any tool with exactly these arguments first
//   [[fail]]                       answer HTTP 500 (once the tool directives, if any, have run)
//   [[hang]]                       stream one token, then nothing until the client aborts
//   [[show:messages]]              answer with the conversation it received, one line a message
//   [[show:system]]                answer with the system prompt it received
//   [[show:model]]                 answer with the model id and sampling parameters it was asked for (JSON)
//   [[think:Some thought]]         before its first reply of the turn, stream the thought word by word as
//                                  reasoning_content (counted as reasoning tokens), as reasoning models do
// Tool directives run in order, one per model call; after the last one it summarises the
// latest tool result ("Tool said: <content>").
// A request to name a conversation (server/agent/model-title.ts's system prompt) is answered at
// once, whatever directives the question holds, and is not listed in /v1/calls: it follows a
// thread's first answer unawaited, and no test may race with it. Its answer is empty (no title: the
// thread keeps its question's) unless the server was started with `titles: true`, then
// "About <the question>".
// GET /v1/calls?contains=WORD lists the calls whose latest user message contains WORD, each with
// whether the client is still reading it ("open"), read it to the end ("done") or went away
// ("aborted"), so a test can see a model call really stopped, and the request body it received
// (`body`: messages, tools...), so a test can see what a model is sent.
// POST /v1/embeddings embeds each input as a bag of its words (lowercased letters and digits),
// hashed into 256 dimensions: texts sharing words have a higher cosine similarity. POST /v1/rerank
// (vLLM, Jina and Cohere style: {model, query, documents, top_n}) scores each document by the share
// of the query's words it contains, and answers {results: [{index, relevance_score}]}, best first.
// Both are listed in /v1/calls too, their text being the inputs (or the query) joined by newlines.
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type FakeLlm = { baseUrl: string; model: string; apiKey: string; close(): Promise<void> };

type ChatMessage = {
  role: string;
  content?: string | { type: string; text?: string; image_url?: { url?: string }; file?: { filename?: string; file_data?: string } }[] | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
};
type ChatRequest = { model?: string; stream?: boolean; messages?: ChatMessage[]; temperature?: number; top_p?: number; seed?: number; tools?: unknown[] };
type ToolCall = { name: string; arguments: string };
type Script = { text: string; delayMs: number; calls: ToolCall[]; fail: boolean; hang: boolean; show: "messages" | "system" | "model" | null; think: string | null };

const DIRECTIVE = /\[\[(tool|call):(\S+)\s+(\{.*?\})\]\]|\[\[(delay):(\d+)\]\]|\[\[(fail|hang)\]\]|\[\[(show):(messages|system|model)\]\]|\[\[(think):([^\]]*)\]\]/g;

function textOf(content: ChatMessage["content"]): string {
  if (typeof content === "string") return content;
  // Images show as their URL's first characters, so tests can see what kind of reference the model got;
  // files (file parts) as their name and their data URL's first characters.
  return (content ?? [])
    .map((p) =>
      p.type === "image_url"
        ? ` [image ${(p.image_url?.url ?? "").slice(0, 40)}]`
        : p.type === "file"
          ? ` [file ${p.file?.filename ?? "?"} ${(p.file?.file_data ?? "").slice(0, 40)}]`
          : (p.text ?? ""),
    )
    .join("");
}

function parseScript(userText: string): Script {
  const script: Script = { text: "", delayMs: 0, calls: [], fail: false, hang: false, show: null, think: null };
  for (const m of userText.matchAll(DIRECTIVE)) {
    if (m[1] === "tool") {
      const [module, method] = m[2]!.split(".");
      script.calls.push({ name: "project_cli", arguments: JSON.stringify({ module, method, input: JSON.parse(m[3]!) }) });
    } else if (m[1] === "call") script.calls.push({ name: m[2]!, arguments: m[3]! });
    else if (m[4] === "delay") script.delayMs = Number(m[5]);
    else if (m[6] === "fail") script.fail = true;
    else if (m[6] === "hang") script.hang = true;
    else if (m[7] === "show") script.show = m[8] as Script["show"];
    else if (m[9] === "think") script.think = m[10]!.trim();
  }
  script.text = userText.replace(DIRECTIVE, " ").replace(/\s+/g, " ").trim();
  return script;
}

function renderMessages(messages: ChatMessage[]): string {
  return messages
    .filter((m) => m.role !== "system")
    .map((m) => {
      const calls = (m.tool_calls ?? []).map((c) => `call ${c.function.name} ${c.function.arguments}`).join("; ");
      const text = textOf(m.content);
      return `${m.role}: ${[text, calls].filter(Boolean).join(" ")}`;
    })
    .join("\n");
}

/** How server/agent/model-title.ts's system prompt begins. */
const TITLE_REQUEST = "You name conversations";

type Reply = { kind: "text"; text: string } | { kind: "tool"; call: ToolCall } | { kind: "hang" };

/** The tool calls made since the latest user message, and that stretch of the conversation. */
function turnOf(messages: ChatMessage[]): { turn: ChatMessage[]; made: number } {
  const lastUser = messages.findLastIndex((m) => m.role === "user");
  const turn = messages.slice(lastUser + 1);
  return { turn, made: turn.reduce((n, m) => n + (m.tool_calls?.length ?? 0), 0) };
}

function plan(messages: ChatMessage[], script: Script, body: ChatRequest): Reply {
  const { turn, made } = turnOf(messages);
  if (made < script.calls.length) return { kind: "tool", call: script.calls[made]! };
  if (script.hang) return { kind: "hang" };
  if (script.show === "system") return { kind: "text", text: textOf(messages.find((m) => m.role === "system")?.content) };
  if (script.show === "messages") return { kind: "text", text: renderMessages(messages) };
  if (script.show === "model") return { kind: "text", text: JSON.stringify({ model: body.model, temperature: body.temperature, top_p: body.top_p, seed: body.seed }) };
  const lastTool = turn.findLast((m) => m.role === "tool");
  if (lastTool) return { kind: "text", text: `Tool said: ${textOf(lastTool.content)}` };
  return { kind: "text", text: `You said: ${script.text || "(nothing)"}` };
}

const tokens = (text: string) => text.split(/(?<=\s)/).filter(Boolean);
const chunksOf = (text: string, size: number) => Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of req) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

function usage(messages: ChatMessage[], completion: number) {
  const prompt = Math.ceil(JSON.stringify(messages).length / 4);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

async function stream(res: http.ServerResponse, model: string, messages: ChatMessage[], reply: Reply, delayMs: number, think: string | null): Promise<void> {
  const id = `chatcmpl-${randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const send = (body: object) => res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, ...body })}\n\n`);
  const delta = (d: object, finish: string | null = null) => send({ choices: [{ index: 0, delta: d, finish_reason: finish }] });
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  delta({ role: "assistant" });
  if (reply.kind === "hang") {
    delta({ content: "Thinking" });
    return new Promise((resolve) => res.once("close", resolve));
  }
  let count = 0;
  let thought = 0;
  for (const token of think ? tokens(think) : []) {
    if (res.destroyed) return;
    await pause(delayMs);
    delta({ reasoning_content: token });
    thought++;
  }
  if (reply.kind === "text") {
    for (const token of tokens(reply.text)) {
      if (res.destroyed) return;
      await pause(delayMs);
      delta({ content: token });
      count++;
    }
  } else {
    const callId = `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
    delta({ tool_calls: [{ index: 0, id: callId, type: "function", function: { name: reply.call.name, arguments: "" } }] });
    for (const piece of chunksOf(reply.call.arguments, 16)) {
      if (res.destroyed) return;
      await pause(delayMs);
      delta({ tool_calls: [{ index: 0, function: { arguments: piece } }] });
      count++;
    }
  }
  delta({}, reply.kind === "tool" ? "tool_calls" : "stop");
  send({ choices: [], usage: { ...usage(messages, count + thought), ...(thought > 0 ? { completion_tokens_details: { reasoning_tokens: thought } } : {}) } });
  res.end("data: [DONE]\n\n");
}

function complete(res: http.ServerResponse, model: string, messages: ChatMessage[], reply: Exclude<Reply, { kind: "hang" }>): void {
  const message =
    reply.kind === "text"
      ? { role: "assistant", content: reply.text }
      : { role: "assistant", content: null, tool_calls: [{ id: `call_${randomUUID().slice(0, 8)}`, type: "function", function: reply.call }] };
  const completion = reply.kind === "text" ? tokens(reply.text).length : 1;
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      id: `chatcmpl-${randomUUID()}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, message, finish_reason: reply.kind === "tool" ? "tool_calls" : "stop" }],
      usage: usage(messages, completion),
    }),
  );
}

/** One request, as GET /v1/calls lists it (with the W3C trace headers it came with). */
type Call = { text: string; state: "open" | "done" | "aborted"; body: ChatRequest | EmbeddingsRequest | RerankRequest; traceparent: string | null; tracestate: string | null };
const CALLS_KEPT = 1_000;

type EmbeddingsRequest = { model?: string; input?: string | string[] };
type RerankRequest = { model?: string; query?: string; documents?: string[]; top_n?: number };

const EMBEDDING_DIMENSIONS = 256;
const wordsOf = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

function embedding(text: string): number[] {
  const vector = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  for (const word of wordsOf(text)) {
    let hash = 2166136261;
    for (const ch of word) hash = Math.imul(hash ^ ch.codePointAt(0)!, 16777619) >>> 0;
    vector[hash % EMBEDDING_DIMENSIONS]! += 1;
  }
  return vector;
}

function relevance(query: string, document: string): number {
  const asked = new Set(wordsOf(query));
  const present = new Set(wordsOf(document));
  return asked.size === 0 ? 0 : [...asked].filter((w) => present.has(w)).length / asked.size;
}

const json = (res: http.ServerResponse, status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));

function embeddings(res: http.ServerResponse, body: EmbeddingsRequest): void {
  const inputs = typeof body.input === "string" ? [body.input] : (body.input ?? []);
  const tokens = inputs.reduce((n, text) => n + wordsOf(text).length, 0);
  json(res, 200, {
    object: "list",
    model: body.model ?? "fake-embedding",
    data: inputs.map((text, index) => ({ object: "embedding", index, embedding: embedding(text) })),
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}

function rerank(res: http.ServerResponse, body: RerankRequest): void {
  const documents = body.documents ?? [];
  const results = documents.map((document, index) => ({ index, relevance_score: relevance(body.query ?? "", document) }));
  results.sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  json(res, 200, { model: body.model, results: results.slice(0, body.top_n ?? documents.length) });
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse, apiKey: string, calls: Call[], titles: boolean): Promise<void> {
  if (req.method === "GET" && req.url?.startsWith("/v1/calls")) {
    const contains = new URL(req.url, "http://fake").searchParams.get("contains") ?? "";
    json(res, 200, calls.filter((c) => c.text.includes(contains)));
    return;
  }
  const endpoint = req.method === "POST" ? ["/chat/completions", "/embeddings", "/rerank"].find((e) => req.url?.endsWith(e)) : undefined;
  if (!endpoint) {
    json(res, 404, { error: { message: "not found" } });
    return;
  }
  if (req.headers.authorization !== `Bearer ${apiKey}`) {
    json(res, 401, { error: { message: "bad api key", type: "invalid_request_error" } });
    return;
  }
  const header = (name: string) => (typeof req.headers[name] === "string" ? (req.headers[name] as string) : null);
  const trace = { traceparent: header("traceparent"), tracestate: header("tracestate") };
  if (endpoint !== "/chat/completions") {
    const body = JSON.parse(await readBody(req)) as EmbeddingsRequest & RerankRequest;
    const text = endpoint === "/embeddings" ? [body.input ?? []].flat().join("\n") : [body.query ?? "", ...(body.documents ?? [])].join("\n");
    calls.push({ text, state: "done", body, ...trace });
    if (calls.length > CALLS_KEPT) calls.shift();
    if (endpoint === "/embeddings") embeddings(res, body);
    else rerank(res, body);
    return;
  }
  const body = JSON.parse(await readBody(req)) as ChatRequest;
  const messages = body.messages ?? [];
  const lastUserText = textOf(messages.findLast((m) => m.role === "user")?.content);
  if (textOf(messages.find((m) => m.role === "system")?.content).startsWith(TITLE_REQUEST)) {
    const question = /^Question: ([^\n]*)/.exec(lastUserText)?.[1] ?? "";
    const reply = { kind: "text" as const, text: titles ? `About ${question}` : "" };
    if (body.stream) await stream(res, body.model ?? "fake", messages, reply, 0, null);
    else complete(res, body.model ?? "fake", messages, reply);
    return;
  }
  const call: Call = { text: lastUserText, state: "open", body, ...trace };
  calls.push(call);
  if (calls.length > CALLS_KEPT) calls.shift();
  res.once("close", () => (call.state = res.writableFinished ? "done" : "aborted"));
  const script = parseScript(lastUserText);
  if (script.fail && turnOf(messages).made >= script.calls.length) {
    res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "scripted failure", type: "server_error" } }));
    return;
  }
  const reply = plan(messages, script, body);
  const model = body.model ?? "fake";
  // Reasoning models think before their first reply of a turn.
  const think = turnOf(messages).turn.length === 0 ? script.think : null;
  if (body.stream) await stream(res, model, messages, reply, script.delayMs, think);
  else if (reply.kind === "hang") await new Promise((resolve) => res.once("close", resolve));
  else complete(res, model, messages, reply);
}

/** Starts the fake LLM on 127.0.0.1 at `port`, or a free one. */
export async function startFakeLlm(opts: { model?: string; apiKey?: string; port?: number; titles?: boolean } = {}): Promise<FakeLlm> {
  const apiKey = opts.apiKey ?? "fake-llm-key";
  const sockets = new Set<Socket>();
  const calls: Call[] = [];
  const server = http.createServer((req, res) => {
    handle(req, res, apiKey, calls, opts.titles ?? false).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: err instanceof Error ? err.message : String(err) } }));
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    model: opts.model ?? "fake-model",
    apiKey,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
