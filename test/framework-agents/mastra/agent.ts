// A Mastra agent served over AG-UI, as its docs show it: @mastra/core's Agent with one tool,
// wrapped by the framework's own AG-UI adapter (@ag-ui/mastra's MastraAgent), its events written
// as SSE by @ag-ui/encoder on a plain node:http server. Its model is the scripted
// OpenAI-compatible fake of test/fake-llm.ts. Two more paths stand for broken agents:
// /fail answers 500, /stall starts a run and then says nothing.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { RunAgentInput } from "@ag-ui/client";
import { EventType } from "@ag-ui/core";
import { EventEncoder } from "@ag-ui/encoder";
import { MastraAgent } from "@ag-ui/mastra";
import { Agent } from "@mastra/core/agent";
import { Mastra } from "@mastra/core/mastra";
import { InMemoryStore } from "@mastra/core/storage";
import { createTool } from "@mastra/core/tools";
import { z } from "zod";

/** `requests`: every RunAgentInput received; `cut`: the runIds whose request the caller closed before the run's end. */
export type MastraAgentServer = { url: string; fail: string; stall: string; requests: RunAgentInput[]; cut: string[]; close(): Promise<void> };

export const WEATHER_TOOL = "get_weather";

const weather = createTool({
  id: WEATHER_TOOL,
  description: "The weather in a city today",
  inputSchema: z.object({ city: z.string().describe("The city's name") }),
  execute: async ({ city }) => ({ city, forecast: `sunny in ${city}`, celsius: 21 }),
});

export const SEND_MAIL_TOOL = "send_mail";

// Human in the loop, Mastra's way: the tool suspends until a person answers (its resumeSchema);
// @ag-ui/mastra ends the run with an interrupt outcome and resumes the agent from resume[].
// The suspended run's snapshot lives in the agent's own (in-memory) storage.
const sendMail = createTool({
  id: SEND_MAIL_TOOL,
  description: "Sends an email once a person approves it",
  inputSchema: z.object({ to: z.string().describe("The recipient's address") }),
  suspendSchema: z.object({ question: z.string() }),
  resumeSchema: z.object({ approved: z.boolean().describe("true sends the mail") }),
  execute: async ({ to }, context) => {
    const agent = context?.agent;
    if (!agent?.resumeData) {
      await agent?.suspend({ question: `Send the mail to ${to}?` });
      return { to, sent: false };
    }
    return { to, sent: agent.resumeData.approved };
  },
});

function mastraAgent(llm: { baseUrl: string; apiKey: string; model: string }): Agent {
  const agent = new Agent({
    id: "weather",
    name: "weather",
    instructions: "You tell people the weather. Use get_weather.",
    // Mastra's own OpenAI-compatible model config: any provider id, the server's URL and key.
    model: { id: `fake/${llm.model}`, url: llm.baseUrl, apiKey: llm.apiKey },
    tools: { [WEATHER_TOOL]: weather, [SEND_MAIL_TOOL]: sendMail },
  });
  // Registered on a Mastra instance with storage, where a suspended run's snapshot waits for resume.
  new Mastra({ agents: { weather: agent }, storage: new InMemoryStore(), logger: false });
  return agent;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => resolve(body));
    req.on("error", reject);
  });
}

/** Streams the Mastra agent's AG-UI events for one RunAgentInput; a client that goes away stops it. */
function serveRun(agent: Agent, input: RunAgentInput, req: http.IncomingMessage, res: http.ServerResponse, cut: string[]): void {
  const encoder = new EventEncoder({ accept: req.headers.accept });
  res.writeHead(200, { "content-type": encoder.getContentType(), "cache-control": "no-cache" });
  const adapter = new MastraAgent({ agent, resourceId: "dispatch-test", threadId: input.threadId });
  const subscription = adapter.run(input).subscribe({
    next: (event) => res.write(encoder.encode(event)),
    error: (err: unknown) => {
      res.write(encoder.encode({ type: EventType.RUN_ERROR, message: err instanceof Error ? err.message : String(err) }));
      res.end();
    },
    complete: () => res.end(),
  });
  res.on("close", () => {
    if (!res.writableEnded) cut.push(input.runId);
    subscription.unsubscribe();
  });
}

export async function startMastraAgent(llm: { baseUrl: string; apiKey: string; model: string }): Promise<MastraAgentServer> {
  const agent = mastraAgent(llm);
  const requests: RunAgentInput[] = [];
  const cut: string[] = [];
  const open = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    open.add(res);
    res.on("close", () => open.delete(res));
    void readBody(req).then((body) => {
      if (req.method !== "POST") return void res.writeHead(405).end();
      if (req.url === "/fail") return void res.writeHead(500, { "content-type": "text/plain" }).end("the agent broke");
      const input = JSON.parse(body) as RunAgentInput;
      requests.push(input);
      if (req.url === "/stall") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(`data: ${JSON.stringify({ type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId })}\n\n`);
        return;
      }
      serveRun(agent, input, req, res, cut);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/agent`,
    fail: `${base}/fail`,
    stall: `${base}/stall`,
    requests,
    cut,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.close(() => resolve());
      }),
  };
}
