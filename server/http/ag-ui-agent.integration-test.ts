import { HttpAgent, type BaseEvent } from "@ag-ui/client";
import { AgentCapabilitiesSchema } from "@ag-ui/core/schemas";
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { getJson, paced, waitForRunEnd } from "@/test/runs";
import { waitFor } from "@/test/wait";

// POST /api/v1/ag-ui against the real server, driven by the official @ag-ui/client HttpAgent on
// its default settings: it resends the conversation it holds on every run.

let alice: Awaited<ReturnType<typeof createTestUser>>;
let bob: Awaited<ReturnType<typeof createTestUser>>;
beforeAll(async () => {
  [alice, bob] = await Promise.all([createTestUser(), createTestUser()]);
});

const url = () => `${baseUrl()}/api/v1/ag-ui`;
const agentFor = (key: string, threadId = randomUUID()) => new HttpAgent({ url: url(), headers: bearer(key), threadId });

function post(key: string, body: unknown, stream = true): Promise<Response> {
  return fetch(url(), {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json", ...(stream ? { accept: "text/event-stream" } : {}) },
    body: JSON.stringify(body),
  });
}

/** The fake model's calls whose user text contains `word` (test/fake-llm.ts). */
async function modelCalls(word: string): Promise<{ state: string }[]> {
  const res = await fetch(`${inject("llmBaseUrl")}/calls?contains=${encodeURIComponent(word)}`);
  return (await res.json()) as { state: string }[];
}

describe("POST /api/v1/ag-ui with the official HttpAgent", () => {
  it("holds a three-turn conversation with a project_cli card that survives in the client's messages", async () => {
    const agent = agentFor(alice.apiKey);
    agent.addMessage({ id: randomUUID(), role: "user", content: "hello one" });
    await agent.runAgent();
    agent.addMessage({ id: randomUUID(), role: "user", content: '[[tool:calendar.read {"mode":"day","date":"2026-01-02","time_zone":"UTC"}]] what is on that day' });
    await agent.runAgent();
    agent.addMessage({ id: randomUUID(), role: "user", content: "[[show:messages]] and three" });
    const third = await agent.runAgent();

    expect(agent.messages.filter((m) => m.role === "user")).toHaveLength(3);
    const tool = agent.messages.find((m) => m.role === "tool");
    expect(tool?.metadata).toMatchObject({ ui_schema: { version: "2.0" } });
    // The model saw the whole thread, as the server kept it, once.
    const seen = String(third.newMessages.at(-1)?.content);
    expect(seen.match(/user: /g)).toHaveLength(3);
    expect(seen).toContain("call project_cli");

    const history = (await (await getJson(alice.apiKey, `/api/v1/agent/history?threadId=${agent.threadId}`)).json()) as { messages: { id: string; role: string }[] };
    const clientIds = agent.messages.filter((m) => m.role !== "assistant" || m.content).map((m) => m.id);
    expect(history.messages.map((m) => m.id)).toEqual(clientIds);
  });

  it("stops a run when the client aborts it, and takes the next message at once", async () => {
    const agent = agentFor(alice.apiKey);
    const word = `stopme${randomUUID().slice(0, 6)}`;
    agent.addMessage({ id: randomUUID(), role: "user", content: paced(150, `${word} a b c d e f g h i j k l m n o p q r s t u v w x y z`) });
    let firstRunId = "";
    const stopped = agent.runAgent(
      {},
      {
        onRunStartedEvent: ({ event }) => void (firstRunId = event.runId),
        onTextMessageContentEvent: () => agent.abortRun(),
      },
    );
    await stopped.catch(() => undefined);
    agent.addMessage({ id: randomUUID(), role: "user", content: "right after stop" });
    const next = await agent.runAgent();
    expect(next.newMessages.at(-1)).toMatchObject({ role: "assistant", content: "You said: right after stop" });

    const first = await waitForRunEnd(alice.apiKey, firstRunId);
    expect(first).toMatchObject({ status: "cancelled", error: { code: "REQUESTER_DISCONNECTED" } });
    await waitFor(async () => (await modelCalls(word)).every((c) => c.state === "aborted"), 10_000);
  });

  it("lets a reloaded client join a running answer: thread snapshot, then the run's events from its start", async () => {
    const threadId = randomUUID();
    const first = agentFor(alice.apiKey, threadId);
    first.addMessage({ id: randomUUID(), role: "user", content: "earlier turn" });
    await first.runAgent();
    first.addMessage({ id: randomUUID(), role: "user", content: paced(60, "slow answer one two three four five six") });
    let midway!: () => void;
    const reached = new Promise<void>((resolve) => (midway = resolve));
    const original = first.runAgent({}, { onTextMessageContentEvent: () => midway() });
    await reached;

    const reloaded = agentFor(alice.apiKey, threadId);
    const types: string[] = [];
    await reloaded.runAgent({}, { onEvent: ({ event }: { event: BaseEvent }) => void types.push(event.type) });
    await original;
    expect(types.slice(0, 2)).toEqual(["RUN_STARTED", "MESSAGES_SNAPSHOT"]);
    expect(types.at(-1)).toBe("RUN_FINISHED");
    expect(reloaded.messages.map((m) => [m.role, m.content])).toEqual(first.messages.map((m) => [m.role, m.content]));
  });

  it("keeps a stopped run alive when the client re-attaches within the grace", async () => {
    const threadId = randomUUID();
    const first = agentFor(alice.apiKey, threadId);
    first.addMessage({ id: randomUUID(), role: "user", content: paced(40, "survive the reload one two three four") });
    let runId = "";
    await first
      .runAgent({}, { onRunStartedEvent: ({ event }) => void (runId = event.runId), onTextMessageContentEvent: () => first.abortRun() })
      .catch(() => undefined);
    const reloaded = agentFor(alice.apiKey, threadId);
    await reloaded.runAgent();
    expect(await waitForRunEnd(alice.apiKey, runId)).toMatchObject({ status: "completed" });
    expect(reloaded.messages.at(-1)).toMatchObject({ role: "assistant", content: "You said: survive the reload one two three four" });
  });

  it("completes a frontend tool round trip: the client's answer reaches the model and the loop goes on", async () => {
    const agent = agentFor(alice.apiKey);
    const tools = [{ name: "get_weather", description: "Weather for a city", parameters: { type: "object", properties: { city: { type: "string" } } } }];
    agent.addMessage({ id: randomUUID(), role: "user", content: '[[call:get_weather {"city":"Paris"}]] weather please' });
    await agent.runAgent({ tools });
    const call = agent.messages.flatMap((m) => (m.role === "assistant" ? m.toolCalls ?? [] : [])).find((c) => c.function.name === "get_weather");
    expect(call?.function.arguments).toBe('{"city":"Paris"}');
    agent.addMessage({ id: randomUUID(), role: "tool", toolCallId: call!.id, content: "sunny, 21C" });
    const answered = await agent.runAgent({ tools });
    expect(answered.newMessages.at(-1)).toMatchObject({ role: "assistant", content: "Tool said: sunny, 21C" });
    // Turn three resends all of it, the client's tool answer included.
    agent.addMessage({ id: randomUUID(), role: "user", content: "thanks" });
    expect((await agent.runAgent({ tools })).newMessages.at(-1)).toMatchObject({ content: "You said: thanks" });
  });
});

describe("POST /api/v1/ag-ui refuses what it cannot reconcile", () => {
  it("answers 409 naming a known message whose content changed, 400 for a new message in the middle, 409 for an answer to no open call", async () => {
    const agent = agentFor(alice.apiKey);
    const userId = randomUUID();
    agent.addMessage({ id: userId, role: "user", content: "original" });
    await agent.runAgent();
    const base = { threadId: agent.threadId, tools: [], context: [], state: {}, forwardedProps: {} };

    const changed = await post(alice.apiKey, { ...base, runId: randomUUID(), messages: [{ id: userId, role: "user", content: "rewritten" }, { id: randomUUID(), role: "user", content: "next" }] });
    expect(changed.status).toBe(409);
    expect(((await changed.json()) as { error: { message: string } }).error.message).toContain(userId);

    const middle = await post(alice.apiKey, {
      ...base,
      runId: randomUUID(),
      messages: [{ id: randomUUID(), role: "user", content: "invented" }, ...agent.messages, { id: randomUUID(), role: "user", content: "next" }],
    });
    expect(middle.status).toBe(400);
    expect(((await middle.json()) as { error: { details: { field: string } } }).error.details.field).toBe("messages[0]");

    const stray = await post(alice.apiKey, { ...base, runId: randomUUID(), messages: [...agent.messages, { id: randomUUID(), role: "tool", toolCallId: "nope", content: "x" }] });
    expect(stray.status).toBe(409);
  });

  it("keeps a thread to its owner, and a runId to its thread", async () => {
    const agent = agentFor(alice.apiKey);
    agent.addMessage({ id: randomUUID(), role: "user", content: "mine" });
    const runId = randomUUID();
    await agent.runAgent({ runId });
    const body = { threadId: agent.threadId, runId: randomUUID(), messages: [{ id: randomUUID(), role: "user", content: "not yours" }] };
    expect((await post(bob.apiKey, body)).status).toBe(404);

    const elsewhere = await post(alice.apiKey, { threadId: randomUUID(), runId, messages: [{ id: randomUUID(), role: "user", content: "other thread" }] });
    expect(elsewhere.status).toBe(409);
    expect(((await elsewhere.json()) as { error: { message: string } }).error.message).toContain("another thread");
    const seed = await fetch(`${baseUrl()}/api/v1/agent/runs`, {
      method: "POST",
      headers: { ...bearer(alice.apiKey), "content-type": "application/json" },
      body: JSON.stringify({ threadId: randomUUID(), runId, messages: [{ id: randomUUID(), role: "user", content: "seed door" }] }),
    });
    expect(seed.status).toBe(409);
  });

  it("describes its agent with AG-UI 1.0 capabilities", async () => {
    const res = await getJson(alice.apiKey, "/api/v1/ag-ui/info");
    const body = (await res.json()) as { agents: Record<string, { capabilities: unknown }> };
    const capabilities = AgentCapabilitiesSchema.parse(body.agents.dispatch!.capabilities);
    expect(capabilities.transport).toMatchObject({ streaming: true, resumable: true });
    expect(capabilities.tools?.items?.map((t) => t.name)).toEqual(["project_cli"]);
    // Nothing declared that is not delivered: reasoning streams (ag-ui-reasoning-ids.integration-test),
    // a thread keeps its state and the agent patches it (test/clients/ag-ui-state.integration-test).
    expect(capabilities.reasoning).toMatchObject({ supported: true, streaming: true });
    expect(capabilities.state).toEqual({ snapshots: true, deltas: true, memory: true, persistentState: true });
  });
});
