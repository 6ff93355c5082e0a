// A CopilotKit agent served over AG-UI, as CopilotKit's docs show it: @copilotkitnext/agent's
// BuiltInAgent (the AI SDK's tool loop) with one tool, registered in @copilotkitnext/runtime's
// CopilotRuntime and served by the runtime's own Hono endpoint (POST {base}/agent/{id}/run answers
// AG-UI events as SSE) on @hono/node-server. Nothing here rewrites the framework's events: the
// only code around the runtime records what the agent was sent and which requests were cut.
// Its model is the scripted OpenAI-compatible fake of test/fake-llm.ts.
import type { AddressInfo } from "node:net";
import { createOpenAI } from "@ai-sdk/openai";
import { BuiltInAgent, defineTool } from "@copilotkitnext/agent";
import { serve, type ServerType } from "@hono/node-server";
import { z } from "zod";

type RunInput = { threadId: string; runId: string; messages: { role: string; toolCalls?: unknown[] }[]; tools: { name: string }[]; state?: unknown };

/** `requests`: every RunAgentInput received; `cut`: the runIds whose request the caller closed before the run's end. */
export type CopilotKitAgentServer = {
  url: string;
  requests: RunInput[];
  cut: string[];
  /** Whether the runtime still runs the thread's agent (its runner keeps a run going after its caller leaves). */
  isRunning(threadId: string): Promise<boolean>;
  close(): Promise<void>;
};

export const WEATHER_TOOL = "get_weather";
/** The tools CopilotKit's BuiltInAgent gives every model to change the shared state (JSON Patch for the delta). */
export const STATE_SNAPSHOT_TOOL = "AGUISendStateSnapshot";
export const STATE_DELTA_TOOL = "AGUISendStateDelta";

const weather = defineTool({
  name: WEATHER_TOOL,
  description: "The weather in a city today",
  parameters: z.object({ city: z.string().describe("The city's name") }),
  execute: async ({ city }) => ({ city, forecast: `sunny in ${city}`, celsius: 21 }),
});

function builtInAgent(llm: { baseUrl: string; apiKey: string; model: string }): BuiltInAgent {
  // The AI SDK's OpenAI provider on the chat completions API, which any OpenAI-compatible server speaks.
  const provider = createOpenAI({ baseURL: llm.baseUrl, apiKey: llm.apiKey });
  return new BuiltInAgent({ model: provider.chat(llm.model), prompt: "You tell people the weather. Use get_weather.", tools: [weather], maxSteps: 5 });
}

/** Wraps the runtime's fetch handler: records each run's input, and notices a caller that goes away mid-run. */
function recording(fetch: (request: Request) => Promise<Response> | Response, requests: RunInput[], cut: string[]) {
  return async (request: Request): Promise<Response> => {
    if (request.method !== "POST" || !new URL(request.url).pathname.endsWith("/run")) return fetch(request);
    const input = (await request.clone().json()) as RunInput;
    requests.push(input);
    const response = await fetch(request);
    let ended = false;
    request.signal.addEventListener("abort", () => void (ended || cut.push(input.runId)));
    if (!response.body) return response;
    const watched = response.body.pipeThrough(new TransformStream({ flush: () => void (ended = true) }));
    return new Response(watched, { status: response.status, headers: response.headers });
  };
}

export async function startCopilotKitAgent(llm: { baseUrl: string; apiKey: string; model: string }): Promise<CopilotKitAgentServer> {
  // The runtime samples usage telemetry to a hosted service when this is unset; tests reach no outside host.
  process.env.COPILOTKIT_TELEMETRY_DISABLED = "true";
  const { CopilotRuntime, createCopilotEndpoint } = await import("@copilotkitnext/runtime");
  const runtime = new CopilotRuntime({ agents: { weather: builtInAgent(llm) } });
  const app = createCopilotEndpoint({ runtime, basePath: "/api/copilotkit" });
  const requests: RunInput[] = [];
  const cut: string[] = [];
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: recording((r) => app.fetch(r), requests, cut), port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/api/copilotkit/agent/weather/run`,
    requests,
    cut,
    isRunning: (threadId) => runtime.runner.isRunning({ threadId }),
    close: () =>
      new Promise<void>((resolve) => {
        if ("closeAllConnections" in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
