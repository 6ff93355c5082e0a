// `node --conditions=react-server --import tsx bench/prompt-tokens.ts [--tokenizer PATH] [--skills]`
// Prompt tokens per run of the built-in agent on the demo's four suggestions, with an
// OpenAI-compatible model: the agent's real loop and request encoder talk to test/fake-llm.ts,
// which records every request body, scripted to make the calls the demo model makes for each
// suggestion (server/models/demo). With --skills the model also reads each action's document
// before first using it, as the prompt tells it to (issue #24's progressive disclosure); without
// it, the calls go straight to the actions, as they did when the tool description held the whole
// action matrix. project_cli's data answers are canned (the same for both), skills documents real.
//
// Tokens: GPT-4o's o200k_base through gpt-tokenizer when --tokenizer names its
// `cjs/encoding/o200k_base.js` (install it in a folder of your own: it is not a dependency);
// otherwise characters / 4, the usual approximation for English and JSON. A request's count is
// that of its messages and tools as JSON, without the few tokens a chat template adds a message.
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { createAgentRunner } from "../server/agent/agent-runner";
import type { ProjectCliBinding } from "../server/agent/tools";
import { createChatCompletionsStreamer } from "../server/models/chat-completions-stream";
import { PROJECT_CLI_TOOL_NAME, projectCliArgsSchema, projectCliToolDescription, runProjectCli } from "../server/tools/project-cli/tool";
import { startFakeLlm } from "../test/fake-llm";
import { z } from "zod";

const { values } = parseArgs({ options: { tokenizer: { type: "string" }, skills: { type: "boolean", default: false } } });

function tokenCounter(): (text: string) => number {
  if (!values.tokenizer) return (text) => Math.ceil(text.length / 4);
  const { encode } = createRequire(import.meta.url)(values.tokenizer) as { encode: (text: string) => number[] };
  return (text) => encode(text).length;
}

const count = tokenCounter();

const ANA = { id: "0b9b6c1e-3f4a-4d2b-9c1e-5a6b7c8d9e0f", name: "Ana Souza", email: "ana@example.com", phone: null, company: "Acme", job_title: "PM" };
const EVENT = {
  id: "6f1c2b1e-8d3a-4c55-9a51-0b7c1e2f3a4d",
  title: "Call with Ana Souza",
  start_at: "2026-01-02T10:00:00+00:00",
  end_at: "2026-01-02T10:30:00+00:00",
  all_day: false,
  time_zone: "UTC",
  location: null,
  description: null,
  status: "confirmed",
  owner: { name: "Demo", email: "demo@example.com" },
  attendees: [{ name: "Ana Souza", email: "ana@example.com", status: "pending" }],
};

// The demo model's calls for each suggestion (server/models/demo/demo-model.test.ts) and canned answers.
const SCENARIOS: { text: string; calls: { module: string; method: string; input: unknown; data: unknown }[] }[] = [
  { text: "What's on my calendar tomorrow?", calls: [{ module: "calendar", method: "read", input: { mode: "day", date: "2026-01-02", time_zone: "UTC" }, data: { mode: "day", items: [EVENT], count: 1 } }] },
  {
    text: "Schedule a call with Ana on Friday at 10 for 30 minutes",
    calls: [
      { module: "contacts", method: "read", input: { query: "Ana" }, data: { items: [ANA], total: 1, query: "Ana" } },
      { module: "calendar", method: "create", input: { title: "Call with Ana Souza", start_at: "2026-01-02T10:00:00+00:00", duration_minutes: 30, attendees: ["ana@example.com"] }, data: { event: EVENT, not_invited: [] } },
    ],
  },
  { text: "Find Ana's email", calls: [{ module: "contacts", method: "read", input: { query: "Ana" }, data: { items: [ANA], total: 1, query: "Ana" } }] },
  { text: "What do you remember about me?", calls: [{ module: "memory", method: "read", input: {}, data: { facts: [{ key: "preferred_meeting_time", value: "mornings", updated_at: "2026-01-01T09:00:00Z" }] } }] },
];

function directives(calls: (typeof SCENARIOS)[number]["calls"]): string {
  const read = new Set<string>();
  const out: string[] = [];
  for (const c of calls) {
    if (values.skills && !read.has(`${c.module}.${c.method}`)) {
      read.add(`${c.module}.${c.method}`);
      out.push(`[[tool:skills.read ${JSON.stringify({ skill: c.module, action: c.method })}]]`);
    }
    out.push(`[[tool:${c.module}.${c.method} ${JSON.stringify(c.input)}]]`);
  }
  return out.join(" ");
}

const canned = new Map(SCENARIOS.flatMap((s) => s.calls.map((c) => [`${c.module}.${c.method}`, c.data] as const)));

const projectCli: ProjectCliBinding = {
  name: PROJECT_CLI_TOOL_NAME,
  description: projectCliToolDescription,
  parameters: z.toJSONSchema(projectCliArgsSchema) as ProjectCliBinding["parameters"],
  async run(request) {
    const { module, method } = request.args as { module: string; method: string };
    if (module === "skills") return runProjectCli(request);
    const result = { module, method, data: canned.get(`${module}.${method}`) };
    return { toolResponseText: JSON.stringify(result), uiSchema: null, output: result };
  },
};

async function main() {
  const llm = await startFakeLlm();
  const streamer = createChatCompletionsStreamer({ baseURL: llm.baseUrl, apiKey: llm.apiKey, modelId: llm.model });
  const model = createOpenAICompatible({ name: "llm", baseURL: llm.baseUrl, apiKey: llm.apiKey }).chatModel(llm.model);
  const runner = createAgentRunner({
    model: () => ({ model, streamer, info: { id: llm.model, provider: "openai-compatible", label: llm.model, offline: false } }) as never,
    projectCli,
    loadContext: async () => ({ history: [], memoryFacts: [{ key: "preferred_meeting_time", value: "mornings" }], toolEvents: [], approvals: [] }),
    approvalGate: () => ({ requested: [], check: async () => null, pendingCards: () => [] }) as never,
    now: () => new Date("2026-01-01T09:00:00Z"),
  });
  const rows: string[] = [];
  let total = 0;
  for (const scenario of SCENARIOS) {
    const mark = `bench${randomUUID().slice(0, 8)}`;
    const text = `${scenario.text} ${mark} ${directives(scenario.calls)}`;
    const threadId = randomUUID();
    await runner.run({
      run: { id: randomUUID(), runId: `run-${mark}`, threadId, userId: randomUUID(), protocol: "ag-ui", deadlineAt: new Date(Date.now() + 60_000), createdAt: new Date() },
      input: { threadId, runId: `run-${mark}`, state: {}, messages: [{ id: `m-${mark}`, role: "user", content: text }], tools: [], context: [], forwardedProps: {} },
      generation: {},
      signal: new AbortController().signal,
      emit: () => {},
    } as never);
    const calls = (await (await fetch(`${llm.baseUrl}/calls?contains=${mark}`)).json()) as { body: { messages: unknown[]; tools?: unknown[] } }[];
    // The scripting directives are the fake model's, not the user's words: the user message counts as the suggestion alone.
    const asSent = (messages: unknown[]) => messages.map((m) => ((m as { role: string }).role === "user" ? { ...(m as object), content: scenario.text } : m));
    const perCall = calls.map((c) => count(JSON.stringify({ messages: asSent(c.body.messages), tools: c.body.tools })));
    const sum = perCall.reduce((a, b) => a + b, 0);
    total += sum;
    rows.push(`| ${scenario.text} | ${calls.length} | ${perCall.join(" + ")} | ${sum} |`);
  }
  const first = (await (await fetch(`${llm.baseUrl}/calls?contains=bench`)).json()) as {
    body: { messages: { role: string; content: string }[]; tools?: { function: { name: string; description: string; parameters: unknown } }[] };
  }[];
  const system = first[0]!.body.messages.find((m) => m.role === "system")!.content;
  const tool = first[0]!.body.tools!.find((t) => t.function.name === PROJECT_CLI_TOOL_NAME)!.function;
  console.log(`tokens: ${values.tokenizer ? "o200k_base (gpt-tokenizer)" : "characters / 4"}; skills documents read first: ${values.skills ? "yes" : "no"}`);
  console.log(`system prompt ${system.length} chars, ${count(system)} tokens; tool description ${tool.description.length} chars, ${count(tool.description)} tokens; schema ${JSON.stringify(tool.parameters).length} chars, ${count(JSON.stringify(tool.parameters))} tokens`);
  console.log("\n| suggestion | model calls | prompt tokens per call | per run |\n| --- | --- | --- | --- |");
  for (const row of rows) console.log(row);
  console.log(`| all four | | | ${total} |`);
  await llm.close();
}

await main();
