// The limit on this machine: a bare node:http server doing the protocol work of a run with
// nothing else. It takes a RunAgentInput, streams the same fake model through fetch, and
// answers the same AG-UI frames Dispatch sends (RUN_STARTED, TEXT_MESSAGE_START/CONTENT/END,
// RUN_FINISHED with `id:` lines). No database, no auth, no history, no persistence.
//   POST /runs          one run, streamed as SSE
//   GET  /idle          an SSE stream that holds one frame and then waits (idle follower)
// Usage: node --import tsx bench/baseline-server.ts --port N --model-url URL
import { randomUUID } from "node:crypto";
import http from "node:http";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { port: { type: "string" }, "model-url": { type: "string" } } });
const modelUrl = `${values["model-url"]}/chat/completions`;

const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform" };

function sseFrame(seq: number, event: object): string {
  return `id: ${seq}\ndata: ${JSON.stringify(event)}\n\n`;
}

type Input = { threadId: string; runId: string; messages: { role: string; content: string }[] };

async function run(req: http.IncomingMessage, res: http.ServerResponse, body: string): Promise<void> {
  const input = JSON.parse(body) as Input;
  if (typeof input.threadId !== "string" || typeof input.runId !== "string" || !Array.isArray(input.messages)) {
    res.writeHead(400).end();
    return;
  }
  const abort = new AbortController();
  res.once("close", () => abort.abort());
  let seq = 0;
  const send = (event: object) => res.write(sseFrame(++seq, event));
  res.writeHead(200, SSE_HEADERS);
  send({ type: "RUN_STARTED", threadId: input.threadId, runId: input.runId });
  const upstream = await fetch(modelUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "bench", stream: true, messages: input.messages }),
    signal: abort.signal,
  });
  const messageId = `msg_${randomUUID()}`;
  let open = false;
  let buffered = "";
  const decoder = new TextDecoder();
  for await (const chunk of upstream.body as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffered.indexOf("\n\n")) >= 0) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
      const text = (JSON.parse(line.slice(6)) as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta?.content;
      if (!text) continue;
      if (!open) {
        open = true;
        send({ type: "TEXT_MESSAGE_START", messageId, role: "assistant" });
      }
      send({ type: "TEXT_MESSAGE_CONTENT", messageId, delta: text });
    }
  }
  if (open) send({ type: "TEXT_MESSAGE_END", messageId });
  send({ type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId });
  res.end();
}

const server = http.createServer((req, res) => {
  if (req.method === "GET" && req.url === "/idle") {
    res.writeHead(200, SSE_HEADERS);
    res.write(sseFrame(1, { type: "RUN_STARTED", threadId: randomUUID(), runId: randomUUID() }));
    return;
  }
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    run(req, res, Buffer.concat(chunks).toString("utf8")).catch(() => res.destroy());
  });
});
server.keepAliveTimeout = 60_000;
server.maxConnections = 100_000;
server.listen(Number(values.port), "127.0.0.1", () => process.stdout.write("ready\n"));
process.on("SIGTERM", () => process.exit(0));
