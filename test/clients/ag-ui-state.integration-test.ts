// The unmodified @ag-ui/client 1.0.0 HttpAgent against POST /api/v1/ag-ui, for issue #40's shared
// state: the client's state reaches the model, the agent changes it with update_state (streamed as
// STATE_DELTA after a STATE_SNAPSHOT and applied by the client's own JSON Patch), the thread keeps
// it for the next run, a reload and /history, and state past its limit or holding a secret is
// refused. Every stream passes the client's own verifyEvents, and is checked again here.
import { HttpAgent, verifyEvents, type BaseEvent } from "@ag-ui/client";
import { randomUUID } from "node:crypto";
import { from, lastValueFrom, toArray } from "rxjs";
import { beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { collectSse } from "@/test/sse";
import { getJson, postRun, runInput } from "@/test/runs";
import { agUiUrl, marker } from "./dispatch";

type User = { apiKey: string };
let alice: User;
beforeAll(async () => {
  alice = await createTestUser();
});

const agentOn = (threadId: string, initialState?: Record<string, unknown>) =>
  new HttpAgent({ url: agUiUrl(), headers: bearer(alice.apiKey), threadId, ...(initialState ? { initialState } : {}) });

async function run(agent: HttpAgent, text?: string): Promise<BaseEvent[]> {
  if (text !== undefined) agent.addMessage({ id: randomUUID(), role: "user", content: text });
  const events: BaseEvent[] = [];
  // Copied as they arrive: the client's JSON Patch inserts a delta's values by reference, so a later
  // operation of the same delta changes the event object it handed out.
  await agent.runAgent({}, { onEvent: ({ event }) => void events.push(structuredClone(event)) });
  await lastValueFrom(from(events).pipe(verifyEvents(false), toArray()));
  return events;
}

type ModelCall = { body: { messages: { role: string; content: unknown }[]; tools?: { function: { name: string } }[] } };
async function modelCalls(word: string): Promise<ModelCall[]> {
  const res = await fetch(`${inject("llmBaseUrl")}/calls?contains=${encodeURIComponent(word)}`);
  return (await res.json()) as ModelCall[];
}
const systemPromptOf = (call: ModelCall) => String(call.body.messages.find((m) => m.role === "system")?.content ?? "");
const toolNamesOf = (call: ModelCall) => (call.body.tools ?? []).map((t) => t.function.name);

const updateState = (operations: unknown[]) => `[[call:update_state ${JSON.stringify({ operations })}]]`;
const ofType = <T>(events: BaseEvent[], type: string) => events.filter((e) => e.type === type) as unknown as T[];
const lastText = (agent: HttpAgent) => {
  const content = agent.messages.at(-1)?.content;
  return typeof content === "string" ? content : "";
};

async function historyState(threadId: string): Promise<unknown> {
  const res = await getJson(alice.apiKey, `/api/v1/agent/history?threadId=${encodeURIComponent(threadId)}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { state: unknown }).state;
}

const RECIPE = { recipe: { title: "Pancakes", ingredients: ["flour", "eggs"] } };
const PATCHED = {
  recipe: { title: "Pancakes", ingredients: ["flour", "eggs", "milk"] },
  plan: { steps: [{ description: "Mix the batter", status: "done" }, { description: "Fry", status: "pending" }] },
};

describe("shared state on POST /api/v1/ag-ui", () => {
  it("shows the client's state to the model, streams the agent's patch, and keeps the result for the thread", async () => {
    const threadId = randomUUID();
    const word = marker("stateful");
    const agent = agentOn(threadId, RECIPE);
    const events = await run(
      agent,
      `${updateState([
        { op: "add", path: "/recipe/ingredients/-", value: "milk" },
        { op: "add", path: "/plan", value: { steps: [{ description: "Mix the batter", status: "pending" }, { description: "Fry", status: "pending" }] } },
        { op: "replace", path: "/plan/steps/0/status", value: "done" },
      ])} add milk ${word}`,
    );

    // The model got the state in its system prompt, and the tool to change it.
    const [first] = await modelCalls(word);
    expect(systemPromptOf(first!)).toContain("Shared state (JSON)");
    expect(systemPromptOf(first!)).toContain(JSON.stringify(RECIPE));
    expect(toolNamesOf(first!)).toContain("update_state");

    // A snapshot first, then the patch as it happened, applied by the client's own JSON Patch.
    const types: string[] = events.map((e) => e.type);
    expect(types.indexOf("STATE_SNAPSHOT")).toBe(1);
    expect(ofType<{ snapshot: unknown }>(events, "STATE_SNAPSHOT")[0]!.snapshot).toEqual(RECIPE);
    const deltas = ofType<{ delta: unknown[] }>(events, "STATE_DELTA");
    expect(deltas).toHaveLength(1);
    expect(deltas[0]!.delta).toHaveLength(3);
    expect(types.indexOf("STATE_DELTA")).toBeGreaterThan(types.indexOf("TOOL_CALL_END"));
    expect(agent.state).toEqual(PATCHED);
    expect(lastText(agent)).toContain('"status":"success"');

    // The run's log holds the same events: a replay gives the same snapshot and delta.
    const runId = (events[0] as unknown as { runId: string }).runId;
    const replay = await collectSse(await fetch(`${baseUrl()}/api/v1/agent/runs/${encodeURIComponent(runId)}/events`, { headers: { ...bearer(alice.apiKey), accept: "text/event-stream" } }));
    const replayed = replay.map((f) => JSON.parse(f.data) as { type: string });
    const stateEvents = (list: { type: string }[]) =>
      list.filter((e) => e.type.startsWith("STATE_")).map((e) => {
        const { type, snapshot, delta } = e as { type: string; snapshot?: unknown; delta?: unknown };
        return { type, snapshot, delta };
      });
    expect(stateEvents(replayed)).toEqual(stateEvents(events));

    // The thread keeps it: /history shows it...
    expect(await historyState(threadId)).toEqual(PATCHED);

    // ...a reload gets it with the thread's messages...
    const reloaded = agentOn(threadId);
    expect((await run(reloaded)).map((e) => e.type)).toEqual(["RUN_STARTED", "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT", "RUN_FINISHED"]);
    expect(reloaded.state).toEqual(PATCHED);

    // ...and a run that sends no state ({}) continues from it: its snapshot carries it, the model sees it.
    const next = marker("continued");
    reloaded.setState({});
    const second = await run(reloaded, `[[show:system]] ${next}`);
    expect(ofType<{ snapshot: unknown }>(second, "STATE_SNAPSHOT")[0]!.snapshot).toEqual(PATCHED);
    expect(reloaded.state).toEqual(PATCHED);
    // (Key order is the database's: the prompt is checked for the values.)
    expect(lastText(reloaded)).toContain('"milk"');
    expect(lastText(reloaded)).toContain('"Mix the batter"');
    expect(toolNamesOf((await modelCalls(next))[0]!)).toContain("update_state");
  });

  it("answers a patch that does not apply with a failure the model reads, and changes nothing", async () => {
    const threadId = randomUUID();
    const agent = agentOn(threadId, RECIPE);
    const events = await run(agent, `${updateState([{ op: "add", path: "/recipe/ingredients/-", value: "milk" }, { op: "remove", path: "/recipe/sugar" }])} no sugar`);
    expect(ofType(events, "STATE_DELTA")).toHaveLength(0);
    expect(agent.state).toEqual(RECIPE);
    // The model's next step saw the failure (the fake model repeats the tool's answer).
    expect(lastText(agent)).toContain("PATCH_FAILED");
    expect(lastText(agent)).toContain("operation 1");
    expect(await historyState(threadId)).toEqual(RECIPE);
  });

  it("replaces the kept state with a client's non-empty state", async () => {
    const threadId = randomUUID();
    await run(agentOn(threadId, RECIPE), "first");
    const agent = agentOn(threadId, { recipe: { title: "Waffles" } });
    const events = await run(agent, "second");
    expect(ofType<{ snapshot: unknown }>(events, "STATE_SNAPSHOT")[0]!.snapshot).toEqual({ recipe: { title: "Waffles" } });
    expect(await historyState(threadId)).toEqual({ recipe: { title: "Waffles" } });
  });

  it("goes on in a fork of the thread", async () => {
    const threadId = randomUUID();
    await run(agentOn(threadId, RECIPE), "to fork");
    const res = await fetch(`${baseUrl()}/api/v1/threads/${threadId}/fork`, { method: "POST", headers: { ...bearer(alice.apiKey), "content-type": "application/json" }, body: "{}" });
    expect(res.status).toBe(201);
    const fork = (await res.json()) as { id: string };
    expect(await historyState(fork.id)).toEqual(RECIPE);
  });

  it("gives a run without state no update_state, and keeps nothing", async () => {
    const threadId = randomUUID();
    const word = marker("stateless");
    const agent = agentOn(threadId);
    const events = await run(agent, `hello ${word}`);
    expect(events.map((e) => e.type)).not.toContain("STATE_SNAPSHOT");
    const [call] = await modelCalls(word);
    expect(toolNamesOf(call!)).not.toContain("update_state");
    expect(systemPromptOf(call!)).not.toContain("Shared state");
    expect(await historyState(threadId)).toBeUndefined();
  });

  it("refuses state past 64 KiB with a 413 that names the limit, and state holding a secret with a 400", async () => {
    const post = (state: unknown) =>
      fetch(agUiUrl(), {
        method: "POST",
        headers: { ...bearer(alice.apiKey), "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify(runInput({ state })),
      });
    const big = await post({ doc: "x".repeat(70 * 1024) });
    expect(big.status).toBe(413);
    expect(await big.text()).toContain("the limit is 65536 bytes");
    const secret = await post({ service: { apiKey: "sk-live-123" } });
    expect(secret.status).toBe(400);
    expect(await secret.text()).toContain("/service/apiKey");
    // The seed door keeps the same rules.
    expect((await postRun(alice.apiKey, runInput({ state: { doc: "x".repeat(70 * 1024) } }))).status).toBe(413);
  });
});

describe("a plan in state (agentic generative UI)", () => {
  it("progresses step by step, each change a delta the client applies as it comes", async () => {
    const threadId = randomUUID();
    const agent = agentOn(threadId, { plan: { steps: [] } });
    const step = (description: string) => ({ description, status: "pending" });
    const script = [
      updateState([{ op: "add", path: "/plan/steps", value: [step("Find a slot"), step("Book it")] }]),
      updateState([{ op: "replace", path: "/plan/steps/0/status", value: "in_progress" }]),
      updateState([
        { op: "test", path: "/plan/steps/0/status", value: "in_progress" },
        { op: "replace", path: "/plan/steps/0/status", value: "done" },
        { op: "replace", path: "/plan/steps/1/status", value: "done" },
      ]),
    ].join(" ");
    const seen: string[][] = [];
    agent.subscribe({ onStateChanged: ({ state }) => void seen.push(((state.plan as { steps: { status: string }[] }).steps ?? []).map((s) => s.status)) });
    const events = await run(agent, `${script} plan it`);
    expect(ofType(events, "STATE_DELTA")).toHaveLength(3);
    expect(seen).toEqual([[], ["pending", "pending"], ["in_progress", "pending"], ["done", "done"]]);
    expect(await historyState(threadId)).toEqual({ plan: { steps: [{ description: "Find a slot", status: "done" }, { description: "Book it", status: "done" }] } });
  });

  it("gives a page that reloads mid-run the state as the run left it, from the run's log", async () => {
    const threadId = randomUUID();
    const before = agentOn(threadId, { plan: { steps: [] } });
    before.addMessage({ id: randomUUID(), role: "user", content: `[[delay:100]] ${updateState([{ op: "add", path: "/plan/steps/-", value: { description: "Draft", status: "done" } }])} a slow answer of several words to stream` });
    const seen: BaseEvent[] = [];
    await before.runAgent({}, {
      onEvent: ({ event }) => {
        seen.push(event);
        if (event.type === "TEXT_MESSAGE_CONTENT") before.abortRun();
      },
    });
    expect(seen.map((e) => e.type)).toContain("STATE_DELTA");
    const after = agentOn(threadId);
    const events = await run(after);
    expect(ofType(events, "STATE_SNAPSHOT")).toHaveLength(1);
    expect(ofType(events, "STATE_DELTA")).toHaveLength(1);
    expect(after.state).toEqual({ plan: { steps: [{ description: "Draft", status: "done" }] } });
  });
});

describe("shared state on POST /api/v1/agent/runs (the seed door)", () => {
  it("continues from the state the thread keeps and shows it to the model", async () => {
    const threadId = randomUUID();
    await run(agentOn(threadId, RECIPE), "set it");
    const word = marker("seedstate");
    const res = await postRun(alice.apiKey, runInput({ threadId, state: {} }, `[[show:system]] ${word}`), { stream: true });
    expect(res.status).toBe(200);
    const events = (await collectSse(res)).map((f) => JSON.parse(f.data) as { type: string; snapshot?: unknown });
    expect(events.find((e) => e.type === "STATE_SNAPSHOT")?.snapshot).toEqual(RECIPE);
    expect(systemPromptOf((await modelCalls(word))[0]!)).toContain('"Pancakes"');
  });
});
