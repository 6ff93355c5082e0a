// A fake AG-UI agent for the relay bench (bench/agent-relay.ts): each POST of a RunAgentInput is
// answered, as SSE, with RUN_STARTED, one text message of `forwardedProps.events` content deltas
// written one by one as fast as the socket takes them, and RUN_FINISHED. Listens on a free
// loopback port and prints its URL as its first line.
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

type AgentInput = { threadId: string; runId: string; forwardedProps: { events: number } };

const frame = (event: object) => `data: ${JSON.stringify(event)}\n\n`;

async function streamAnswer(input: AgentInput, res: http.ServerResponse): Promise<void> {
  const events = input.forwardedProps.events;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const messageId = randomUUID();
  res.write(frame({ type: "RUN_STARTED", threadId: input.threadId, runId: input.runId }));
  res.write(frame({ type: "TEXT_MESSAGE_START", messageId, role: "assistant" }));
  for (let i = 0; i < events; i++) {
    if (res.destroyed) return;
    // One event per turn of the event loop, as an agent streaming a model's tokens writes them.
    if (!res.write(frame({ type: "TEXT_MESSAGE_CONTENT", messageId, delta: `word${i} ` }))) await new Promise((r) => res.once("drain", r));
    else await new Promise((r) => setImmediate(r));
  }
  res.write(frame({ type: "TEXT_MESSAGE_END", messageId }));
  res.end(frame({ type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId }));
}

const server = http.createServer((req, res) => {
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (c: string) => (body += c));
  req.on("end", () => void streamAnswer(JSON.parse(body) as AgentInput, res));
});
server.listen(0, "127.0.0.1", () => process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}/agent\n`));
