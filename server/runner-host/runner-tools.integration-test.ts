import { HttpAgent, type Interrupt } from "@ag-ui/client";
import { RunFinishedEventSchema } from "@ag-ui/core/schemas";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CAREFUL_MEMORY_RUNNER_ID, carefulMemoryRunner, startCarefulMemoryRunner } from "@/examples/runners/careful-memory";
import { FRONTEND_TOOLS_RUNNER_ID, startFrontendToolsRunner } from "@/examples/runners/frontend-tools";
import { RECALL_RUNNER_ID, startRecallRunner } from "@/examples/runners/recall";
import { startRunners, type StartedRunner } from "@/examples/runners/start";
import { defineRunner } from "@/sdk/runner/define-runner";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { decide, events, fact, history, ofType, type Event } from "@/server/approvals/test-support";
import { getPool } from "@/server/db";
import { StreamObjectSchema, type StreamObject } from "@/server/protocols/agent-api/response";
import { getRunDetail } from "@/server/admin/service/runs";
import { bindRunner, registerRunner, runApiCalls } from "@/server/runner-host/service";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { getJson, postRun, runInput, waitForRunEnd } from "@/test/runs";
import { collectSse } from "@/test/sse";

// A runner's tool calls as first-class calls of its run, over real HTTP against the production
// server: project_cli through tools/call streams and is kept exactly as the built-in agent's
// calls are (events with the card, tool message, /history, the console); a write that waits for
// a person ends the run with the interrupt every door knows, and the decision's continuation
// re-invokes the runner, whose retried call runs once; and the client's own tools make the round
// trip through the runner's result stream with @ag-ui/client's HttpAgent and the Agent API; and a
// runner ranks what it read with models/rerank.

let memory: StartedRunner;
let frontend: StartedRunner;
let recall: StartedRunner;
beforeAll(async () => {
  const secrets = [`rt-${randomUUID()}`, `rt-${randomUUID()}`, `rt-${randomUUID()}`];
  memory = await startCarefulMemoryRunner({ secret: secrets[0]!, hostUrl: baseUrl() });
  frontend = await startFrontendToolsRunner({ secret: secrets[1]! });
  recall = await startRecallRunner({ secret: secrets[2]!, hostUrl: baseUrl() });
  expect((await registerRunner({ url: memory.url, secret: secrets[0]! })).runnerIds).toEqual([CAREFUL_MEMORY_RUNNER_ID]);
  expect((await registerRunner({ url: frontend.url, secret: secrets[1]! })).runnerIds).toEqual([FRONTEND_TOOLS_RUNNER_ID]);
  expect((await registerRunner({ url: recall.url, secret: secrets[2]! })).runnerIds).toEqual([RECALL_RUNNER_ID]);
});
afterAll(async () => {
  await Promise.all([memory?.close(), frontend?.close(), recall?.close()]);
});

async function userBoundTo(runnerId: string) {
  const user = await createTestUser();
  await bindRunner({ runnerId, email: user.email });
  return user;
}

const key = () => `rt_${randomUUID().replaceAll("-", "").slice(0, 10)}`;
const runRowId = async (clientRunId: string) => (await getPool().query<{ id: string }>(`select id from runs where run_id = $1`, [clientRunId])).rows[0]!.id;
const text = (list: Event[]) => ofType(list, "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");

async function streamed(apiKey: string, body: ReturnType<typeof runInput>): Promise<Event[]> {
  const res = await postRun(apiKey, body, { stream: true });
  expect(res.status).toBe(200);
  return events(res);
}

describe("project_cli through tools/call is a first-class call of the runner's run", () => {
  it("streams the call with its card before the answer, keeps the tool message, /history card and console row", async () => {
    const user = await userBoundTo(CAREFUL_MEMORY_RUNNER_ID);
    await getPool().query(`update users set approval_policy = 'never' where id = $1`, [user.id]);
    const threadId = randomUUID();
    const k = key();
    const wrote = await streamed(user.apiKey, runInput({ threadId }, `remember ${k} is green`));
    expect(await fact(user.id, k)).toBe("green");
    const body = runInput({ threadId }, "what do you remember?");
    const list = await streamed(user.apiKey, body);
    for (const run of [wrote, list]) {
      const types = run.map((e) => e.type);
      // The call, its result, then the runner's answer: one sequence the guard accepted.
      expect(types.indexOf("TOOL_CALL_START")).toBeLessThan(types.indexOf("TOOL_CALL_RESULT"));
      expect(types.indexOf("TOOL_CALL_RESULT")).toBeLessThan(types.indexOf("TEXT_MESSAGE_START"));
      expect(types.at(-1)).toBe("RUN_FINISHED");
    }
    const start = ofType(list, "TOOL_CALL_START")[0]!;
    expect(start).toMatchObject({ toolCallName: "project_cli", parentMessageId: expect.any(String) });
    expect(JSON.parse(ofType(list, "TOOL_CALL_ARGS").map((e) => e.delta).join(""))).toEqual({ module: "memory", method: "read", input: {} });
    const result = ofType(list, "TOOL_CALL_RESULT")[0]!;
    expect(result).toMatchObject({ toolCallId: start.toolCallId, role: "tool", metadata: { ui_schema: { version: expect.any(String) } } });
    expect(result.content).toContain(k);
    expect(text(list)).toContain(k);

    // The thread keeps the tool message the built-in agent would: its ToolAgentOutput and name.
    const { rows } = await getPool().query<{ metadata: Record<string, unknown> }>(
      `select metadata from messages where thread_id = $1 and role = 'tool' and metadata->>'tool_call_id' = $2`,
      [threadId, start.toolCallId],
    );
    expect(rows[0]!.metadata).toMatchObject({ tool_name: "project_cli", tool_agent_output: { tool_name: "project_cli", status: "success", result: { module: "memory", method: "read" } } });
    // /history shows its card, as the chat does after a reload.
    const kept = (await history(user.apiKey, threadId)).messages.filter((m) => m.role === "tool");
    expect(kept).toHaveLength(2);
    expect(kept.every((m) => m.uiSchema && m.uiSchema.status !== "pending")).toBe(true);
    // The console's tool outputs: the call, its arguments, output and card.
    const detail = await getRunDetail({ id: await runRowId(body.runId) });
    expect(detail.toolCalls).toEqual([
      expect.objectContaining({ toolCallId: start.toolCallId, toolName: "project_cli", status: "success", argsSource: "events", uiSource: "ui_hints", output: expect.objectContaining({ status: "success" }) }),
    ]);
  });
});

describe("a runner ranking with models/rerank", () => {
  it("reads the user's facts, has the host rank them against the question, and answers best first", async () => {
    const user = await userBoundTo(RECALL_RUNNER_ID);
    // memory.read lists facts by key, so the fact that fits comes last there: first in the answer
    // only if the host ranked it.
    const facts = { bike_colour: "red", coffee_order: "flat white", home_city: "Lisbon", train_to_work: "the 8:12 from Lisbon Oriente" };
    for (const [k, value] of Object.entries(facts)) {
      await getPool().query(`insert into memory_facts (id, user_id, key, value, updated_at) values (gen_random_uuid(), $1, $2, $3, now())`, [user.id, k, value]);
    }
    const body = runInput({ threadId: randomUUID() }, "Which train do I take to work from Lisbon?");
    const answer = text(await streamed(user.apiKey, body));
    // No rerank model or embeddings in the test host: full-text relevance ranks, and the fact
    // with more of the question's words comes before the one with fewer; top_k keeps three.
    expect(answer.split("\n")).toEqual([
      "What I remember that fits best (ranked by full text):",
      "1. train_to_work: the 8:12 from Lisbon Oriente",
      "2. home_city: Lisbon",
      "3. bike_colour: red",
    ]);
    // Both host calls went through the host API, as the run's audit shows (its rows are
    // group-committed, so two calls close together may land in either order).
    const { calls } = await runApiCalls({ runId: await runRowId(body.runId), limit: 10 });
    expect(calls.map((c) => `${c.action} ${c.result}`).sort()).toEqual(["models/rerank ok", "tools/call ok"]);
  });
});

describe("host tool calls served by another instance", () => {
  const ELSEWHERE_ID = "plugin:dispatch-tests/elsewhere/default";
  let extra: ExtraServer | null = null;
  let elsewhere: StartedRunner | null = null;
  afterAll(async () => {
    await elsewhere?.close();
    extra?.child.kill("SIGKILL");
  });

  it("hands the call over to the executing instance: it streams with its card, and a held write still ends in an interrupt", async () => {
    extra = await startExtraServer();
    // The same runner, calling the host API on the second instance while the first executes its runs.
    const secret = `rt-${randomUUID()}`;
    elsewhere = await startRunners({ secret, hostUrl: extra.url, runners: [defineRunner({ manifest: { ...carefulMemoryRunner.manifest, id: ELSEWHERE_ID }, run: carefulMemoryRunner.run })] });
    await registerRunner({ url: elsewhere.url, secret });
    const user = await userBoundTo(ELSEWHERE_ID);
    const threadId = randomUUID();
    const k = key();

    const held = await streamed(user.apiKey, runInput({ threadId }, `remember ${k} is amber`));
    const outcome = ofType(held, "RUN_FINISHED")[0]!.outcome as { type: string; interrupts: Interrupt[] };
    expect(outcome).toMatchObject({ type: "interrupt", interrupts: [{ toolCallId: ofType(held, "TOOL_CALL_START")[0]!.toolCallId }] });

    // In another conversation (in this one, the new message would first settle the held write).
    const body = runInput({}, "what do you remember?");
    const read = await streamed(user.apiKey, body);
    const types = read.map((e) => e.type);
    expect(types.indexOf("TOOL_CALL_RESULT")).toBeGreaterThan(types.indexOf("TOOL_CALL_END"));
    expect(types.at(-1)).toBe("RUN_FINISHED");
    expect(ofType(read, "TOOL_CALL_RESULT")[0]).toMatchObject({ metadata: { ui_schema: { version: "2.0" } } });
    const runId = await runRowId(body.runId);
    expect((await getRunDetail({ id: runId })).toolCalls).toEqual([expect.objectContaining({ toolName: "project_cli", status: "success", uiSource: "ui_hints" })]);
    // Taken, not left behind.
    const { rows } = await getPool().query(`select 1 from runner_tool_hand_overs where run_id = $1`, [runId]);
    expect(rows).toEqual([]);
  });
});

describe("a runner's write that waits for a person", () => {
  it("ends the run with an interrupt; the decision's continuation re-invokes the runner and the retried call runs once", async () => {
    const user = await userBoundTo(CAREFUL_MEMORY_RUNNER_ID);
    const k = key();
    const body = runInput({}, `remember ${k} is blue`);
    const list = await streamed(user.apiKey, body);
    const finished = ofType(list, "RUN_FINISHED")[0]!;
    expect(RunFinishedEventSchema.safeParse(finished).success).toBe(true);
    const outcome = finished.outcome as { type: string; interrupts: Interrupt[] };
    expect(outcome.type).toBe("interrupt");
    const [interrupt] = outcome.interrupts;
    const call = ofType(list, "TOOL_CALL_START")[0]!;
    // The call streamed and stays open: no result until someone decides.
    expect(interrupt).toMatchObject({ reason: "tool_approval", toolCallId: call.toolCallId, metadata: { ui_schema: { status: "pending" } } });
    expect(ofType(list, "TOOL_CALL_RESULT")).toHaveLength(0);
    expect(text(list)).toContain("once you approve");
    expect(await fact(user.id, k)).toBeNull();
    const pending = (await history(user.apiKey, body.threadId)).messages.find((m) => m.approval);
    expect(pending).toMatchObject({ role: "tool", uiSchema: { status: "pending" }, approval: { id: interrupt!.id, status: "pending" } });

    // Approved with an edit: the continuation (resume-<run>) runs the runner again, which calls
    // again with the same tool_call_id; the edited write runs, and its card replaces the pending one.
    const decided = await decide(user.apiKey, interrupt!.id, { approve: true, input: { facts: [{ key: k, value: "navy blue" }] } });
    expect(decided.status).toBe(202);
    const continuation = ((await decided.json()) as { task: { runId: string } }).task.runId;
    expect(continuation).toBe(`resume-${await runRowId(body.runId)}`);
    expect(await waitForRunEnd(user.apiKey, continuation)).toMatchObject({ status: "completed" });
    expect(await fact(user.id, k)).toBe("navy blue");
    const res = await getJson(user.apiKey, `/api/v1/agent/runs/${continuation}/events`);
    const continued = (await collectSse(res)).map((f) => JSON.parse(f.data) as Event);
    const answered = ofType(continued, "TOOL_CALL_RESULT");
    expect(answered).toHaveLength(1);
    expect(answered[0]).toMatchObject({ toolCallId: call.toolCallId, metadata: { ui_schema: { status: "success" } } });
    expect(text(continued)).toContain("Done: memory.update.");
    const after = (await history(user.apiKey, body.threadId)).messages.filter((m) => m.role === "tool");
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ uiSchema: { status: "success" } });

    // Asked again in the same thread, the retried id is the same call: nothing runs twice.
    const { rows } = await getPool().query(`select count(*)::int as n from tool_effects where tool_call_id = $1`, [call.toolCallId]);
    expect(rows[0]).toEqual({ n: 1 });
  });

  it("gives @ag-ui/client's HttpAgent a valid interrupt it resumes with resume[]; a new user message supersedes a pending write", async () => {
    const user = await userBoundTo(CAREFUL_MEMORY_RUNNER_ID);
    const k = key();
    const agent = new HttpAgent({ url: `${baseUrl()}/api/v1/ag-ui`, headers: bearer(user.apiKey), threadId: randomUUID() });
    agent.addMessage({ id: randomUUID(), role: "user", content: `remember ${k} is teal` });
    let interrupts: Interrupt[] = [];
    await agent.runAgent({}, { onRunFinishedEvent: (p) => void (p.outcome === "interrupt" && (interrupts = p.interrupts)) });
    expect(interrupts).toHaveLength(1);
    await expect(agent.runAgent({})).rejects.toThrow(/pending interrupt/);
    await agent.runAgent({ resume: [{ interruptId: interrupts[0]!.id, status: "resolved", payload: { approved: true } }] });
    expect(agent.messages.find((m) => m.role === "tool" && m.toolCallId === interrupts[0]!.toolCallId)).toBeDefined();
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: "Done: memory.update." });
    expect(await fact(user.id, k)).toBe("teal");

    // On the seed door, the next user message while a write waits: not done, and the runner hears why.
    const other = key();
    const asked = runInput({}, `remember ${other} is grey`);
    const first = await streamed(user.apiKey, asked);
    const held = (ofType(first, "RUN_FINISHED")[0]!.outcome as { interrupts: Interrupt[] }).interrupts[0]!;
    const next = await streamed(user.apiKey, runInput({ threadId: asked.threadId }, "never mind"));
    expect(ofType(next, "TOOL_CALL_RESULT")[0]).toMatchObject({ toolCallId: held.toolCallId });
    expect(text(next)).toContain("Not done: memory.update (NOT_APPROVED).");
    expect(await fact(user.id, other)).toBeNull();
    const { rows } = await getPool().query(`select status from approvals where id = $1`, [held.id]);
    expect(rows).toEqual([{ status: "superseded" }]);
  });

  it("asks on the Agent API with an mcp_approval_request; mcp_approval_response continues through the runner", async () => {
    const user = await userBoundTo(CAREFUL_MEMORY_RUNNER_ID);
    const k = key();
    const first = await agentProcess(user.apiKey, { input: said(`remember ${k} is red`) });
    const end = first.at(-1) as { status: string; output: { type: string; content: { data?: Record<string, unknown> }[] }[] };
    expect(end).toMatchObject({ status: "incomplete" });
    const request = end.output.find((m) => m.type === "mcp_approval_request")!.content[0]!.data!;
    expect(request).toMatchObject({ name: "project_cli", id: expect.any(String) });
    const sessionId = (first[0] as { session_id: string }).session_id;
    const second = await agentProcess(user.apiKey, { session_id: sessionId, input: [{ type: "mcp_approval_response", approval_request_id: request.id, approve: true }] });
    const done = second.at(-1) as typeof end;
    expect(done).toMatchObject({ status: "completed" });
    expect(done.output.find((m) => m.type === "function_call_output")!.content[0]!.data).toMatchObject({ call_id: request.call_id });
    expect(await fact(user.id, k)).toBe("red");
  });
});

const said = (value: string) => [{ type: "message", role: "user", content: [{ type: "text", text: value }] }];

async function agentProcess(apiKey: string, body: Record<string, unknown>): Promise<StreamObject[]> {
  const res = await fetch(`${baseUrl()}/api/v1/agent/process`, { method: "POST", headers: { ...bearer(apiKey), "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).toBe(200);
  const objects = (await collectSse(res)).map((f) => JSON.parse(f.data) as StreamObject);
  for (const o of objects) expect(StreamObjectSchema.safeParse(o).success, JSON.stringify(o)).toBe(true);
  return objects;
}

describe("the client's own tools, called by a runner", () => {
  const WEATHER = { name: "get_weather", description: "Weather for a city", parameters: { type: "object", properties: { city: { type: "string" } } } };

  it("makes the round trip with @ag-ui/client's HttpAgent: the call, the client's answer in the next run, the runner's reply", async () => {
    const user = await userBoundTo(FRONTEND_TOOLS_RUNNER_ID);
    const agent = new HttpAgent({ url: `${baseUrl()}/api/v1/ag-ui`, headers: bearer(user.apiKey), threadId: randomUUID() });
    agent.addMessage({ id: randomUUID(), role: "user", content: 'use get_weather {"city":"Paris"}' });
    await agent.runAgent({ tools: [WEATHER] });
    const call = agent.messages.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []) : [])).find((c) => c.function.name === "get_weather");
    expect(JSON.parse(call!.function.arguments)).toEqual({ city: "Paris" });
    agent.addMessage({ id: randomUUID(), role: "tool", toolCallId: call!.id, content: "sunny, 21C" });
    const answered = await agent.runAgent({ tools: [WEATHER] });
    expect(answered.newMessages.at(-1)).toMatchObject({ role: "assistant", content: "The client answered get_weather: sunny, 21C" });
  });

  it("makes the round trip on the Agent API: function_call, then function_call_output on the session", async () => {
    const user = await userBoundTo(FRONTEND_TOOLS_RUNNER_ID);
    const tools = [{ type: "function", function: WEATHER }];
    const first = await agentProcess(user.apiKey, { input: said('use get_weather {"city":"Oslo"}'), tools });
    const end = first.at(-1) as { output: { type: string; content: { data?: Record<string, unknown> }[] }[] };
    const call = end.output.find((m) => m.type === "function_call")!.content[0]!.data as { call_id: string; name: string; arguments: string };
    expect(call).toMatchObject({ name: "get_weather", arguments: '{"city":"Oslo"}' });
    expect(end.output.some((m) => m.type === "function_call_output")).toBe(false);
    const sessionId = (first[0] as { session_id: string }).session_id;
    const output = { type: "function_call_output", role: "tool", content: [{ type: "data", data: { call_id: call.call_id, output: "snow, -3C" } }] };
    const second = await agentProcess(user.apiKey, { session_id: sessionId, input: [output], tools });
    const words = JSON.stringify((second.at(-1) as typeof end).output.filter((m) => m.type === "message"));
    expect(words).toContain("The client answered get_weather: snow, -3C");
  });

  it("makes the round trip on the seed endpoint: the answer comes with the next user message, and the thread keeps it", async () => {
    const user = await userBoundTo(FRONTEND_TOOLS_RUNNER_ID);
    const first = runInput({ tools: [WEATHER] }, 'use get_weather {"city":"Rome"}');
    const call = ofType(await events(await postRun(user.apiKey, first, { stream: true })), "TOOL_CALL_START")[0]!;
    const second = runInput({
      threadId: first.threadId,
      tools: [WEATHER],
      messages: [
        { id: "u2", role: "user", content: "here it is" },
        { id: "t2", role: "tool", toolCallId: call.toolCallId, content: "hot, 30C" },
      ],
    });
    const answered = await events(await postRun(user.apiKey, second, { stream: true }));
    expect(ofType(answered, "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("")).toBe("The client answered get_weather: hot, 30C");
    expect((await history(user.apiKey, first.threadId)).messages.map((m) => [m.role, m.content])).toEqual([
      ["user", 'use get_weather {"city":"Rome"}'],
      ["tool", "hot, 30C"],
      ["user", "here it is"],
      ["assistant", "The client answered get_weather: hot, 30C"],
    ]);
  });
});
