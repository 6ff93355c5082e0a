// A second real agent framework behind Dispatch: CopilotKit's BuiltInAgent served over AG-UI by
// CopilotKit's own runtime (@copilotkitnext/runtime, in ./copilotkit: npm ci there), registered
// as an AG-UI agent and bound to a user. The unmodified @ag-ui/client HttpAgent talks to Dispatch;
// every stream Dispatch serves is checked with its verifyEvents, on both AG-UI doors.
import { HttpAgent, type BaseEvent } from "@ag-ui/client";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { registerAgent } from "@/server/runner-host/service";
import { StreamObjectSchema } from "@/server/protocols/agent-api/response";
import { baseUrl, bearer } from "@/test/helpers";
import { getJson, paced, postRun, runInput, waitForRunEnd } from "@/test/runs";
import { collectSse } from "@/test/sse";
import { waitFor } from "@/test/wait";
import { agUiUrl } from "@/test/clients/dispatch";
import { startCopilotKitAgent, STATE_DELTA_TOOL, WEATHER_TOOL, type CopilotKitAgentServer } from "./copilotkit/agent";
import { runIdOf, send, userBoundTo, verified } from "./turns";

let copilotkit: CopilotKitAgentServer;
let runnerId = "";

beforeAll(async () => {
  copilotkit = await startCopilotKitAgent({ baseUrl: inject("llmBaseUrl"), apiKey: inject("llmApiKey"), model: inject("llmModel") });
  ({ runnerId } = await registerAgent({ url: copilotkit.url, name: `copilotkit-${randomUUID().slice(0, 8)}` }));
});

afterAll(async () => {
  await copilotkit?.close();
});

const newAgent = (apiKey: string, threadId = randomUUID()) => new HttpAgent({ url: agUiUrl(), headers: bearer(apiKey), threadId });

describe("a CopilotKit agent (@copilotkitnext/runtime) behind Dispatch", () => {
  it("holds a three-turn conversation with a tool call through /api/v1/ag-ui, kept in /history", async () => {
    const user = await userBoundTo(runnerId);
    const threadId = randomUUID();
    const agent = newAgent(user.apiKey, threadId);

    const one = await send(agent, "hello one");
    expect(one.answer).toBe("You said: hello one");
    const two = await send(agent, `[[call:${WEATHER_TOOL} {"city":"Paris"}]] the weather`);
    expect(two.events.map((e) => e.type)).toEqual(expect.arrayContaining(["TOOL_CALL_START", "TOOL_CALL_END", "TOOL_CALL_RESULT"]));
    expect(two.answer).toMatch(/^Tool said: .*sunny in Paris/);
    const three = await send(agent, "[[show:messages]] and three");
    // The model saw the whole thread once, as Dispatch sent it to the stateless agent.
    expect([...three.answer.matchAll(/^(user|assistant|tool): /gm)].map((m) => m[1])).toEqual(["user", "assistant", "user", "assistant", "tool", "assistant", "user"]);

    const sent = copilotkit.requests.filter((r) => r.threadId === threadId);
    expect(sent).toHaveLength(3);
    expect(sent[2]!.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "tool", "assistant", "user"]);
    expect(sent[2]!.messages[3]).toMatchObject({ role: "assistant", toolCalls: [{ function: { name: WEATHER_TOOL, arguments: '{"city":"Paris"}' } }] });

    const history = (await (await getJson(user.apiKey, `/api/v1/agent/history?threadId=${threadId}`)).json()) as { messages: { role: string; content: string }[] };
    expect(history.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "tool", "assistant", "user", "assistant"]);
    expect(history.messages[3]!.content).toContain("sunny in Paris");
    for (const turn of [one, two, three]) expect((await waitForRunEnd(user.apiKey, runIdOf(turn.events))).status).toBe("completed");
  });

  it("answers through the seed door (POST /api/v1/agent/runs), its stream passing verifyEvents", async () => {
    const user = await userBoundTo(runnerId);
    const res = await postRun(user.apiKey, runInput({}, `[[call:${WEATHER_TOOL} {"city":"Rome"}]] through the seed door`), { stream: true });
    expect(res.status).toBe(200);
    const frames = (await collectSse(res)).map((f) => JSON.parse(f.data) as BaseEvent & { delta?: string });
    expect(frames.filter((f) => f.type === "TEXT_MESSAGE_CONTENT").map((f) => f.delta).join("")).toMatch(/^Tool said: .*sunny in Rome/);
    expect(frames.at(-1)?.type).toBe("RUN_FINISHED");
    await verified(frames);
  });

  it("answers through the Agent API (POST /api/v1/agent/process) with valid stream objects", async () => {
    const user = await userBoundTo(runnerId);
    const body = { input: [{ type: "message", role: "user", content: [{ type: "text", text: `[[call:${WEATHER_TOOL} {"city":"Oslo"}]] via the agent api` }] }] };
    const res = await fetch(`${baseUrl()}/api/v1/agent/process`, { method: "POST", headers: { ...bearer(user.apiKey), "content-type": "application/json" }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    const objects = (await collectSse(res)).map((f) => JSON.parse(f.data) as Record<string, unknown>);
    for (const o of objects) expect(StreamObjectSchema.safeParse(o).success, JSON.stringify(o)).toBe(true);
    const end = objects.at(-1) as { status: string; output: { type: string }[] };
    expect(end.status).toBe("completed");
    expect(JSON.stringify(end.output.filter((m) => m.type === "message"))).toContain("sunny in Oslo");
  });

  it("shares state: the agent's STATE_DELTA reaches the client, and the next run starts from it", async () => {
    const user = await userBoundTo(runnerId);
    const threadId = randomUUID();
    const agent = newAgent(user.apiKey, threadId);
    const patch = JSON.stringify({ delta: [{ op: "replace", path: "/city", value: "Lima" }] });
    const turn = await send(agent, `[[call:${STATE_DELTA_TOOL} ${patch}]] remember Lima`, {}, { city: null, units: "metric" });
    expect(turn.events.map((e) => e.type)).toContain("STATE_DELTA");
    expect(agent.state).toEqual({ city: "Lima", units: "metric" });

    // A client that holds nothing (a new page) sends no state: the agent gets the thread's from Dispatch.
    await send(newAgent(user.apiKey, threadId), "and now");
    expect(copilotkit.requests.filter((r) => r.threadId === threadId).map((r) => r.state)).toEqual([
      { city: null, units: "metric" },
      { city: "Lima", units: "metric" },
    ]);
  });

  it("passes the client's own tools to the agent and its answer back in the next run", async () => {
    const user = await userBoundTo(runnerId);
    const threadId = randomUUID();
    const agent = newAgent(user.apiKey, threadId);
    const tools = [{ name: "pick_city", description: "Ask the user to pick a city", parameters: { type: "object", properties: { hint: { type: "string" } } } }];
    agent.addMessage({ id: randomUUID(), role: "user", content: '[[call:pick_city {"hint":"north"}]] pick one' });
    await agent.runAgent({ tools });
    const call = agent.messages.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []) : [])).find((c) => c.function.name === "pick_city");
    expect(JSON.parse(call!.function.arguments)).toEqual({ hint: "north" });
    expect(copilotkit.requests.filter((r) => r.threadId === threadId).at(-1)!.tools.map((t) => t.name)).toEqual(["pick_city"]);
    agent.addMessage({ id: randomUUID(), role: "tool", toolCallId: call!.id, content: "Bergen" });
    const answered = await agent.runAgent({ tools });
    expect(answered.newMessages.at(-1)).toMatchObject({ role: "assistant", content: "Tool said: Bergen" });
    // The agent got the call and the client's answer from the thread Dispatch keeps.
    expect(copilotkit.requests.filter((r) => r.threadId === threadId).at(-1)!.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  });

  it("stops a run mid-answer: the agent's request is cut and the run ends cancelled", async () => {
    const user = await userBoundTo(runnerId);
    const threadId = randomUUID();
    const agent = newAgent(user.apiKey, threadId);
    const word = `stop${randomUUID().slice(0, 8)}`;
    const turn = await send(agent, paced(100, `${word} ${"one two three four five six seven eight nine ten ".repeat(3)}`), {
      onTextMessageContentEvent: ({ textMessageBuffer }) => void (textMessageBuffer.includes(word) && agent.abortRun()),
    });
    expect(turn.answer.startsWith(`You said: ${word}`)).toBe(true);
    expect((await waitForRunEnd(user.apiKey, runIdOf(turn.events))).status).toBe("cancelled");
    await waitFor(() => copilotkit.cut.includes(runIdOf(turn.events)));
    // CopilotKit's runtime lets a run whose caller left finish on its own (its stop is an endpoint
    // of its own), and meanwhile answers a new run on that thread with an empty stream: Dispatch
    // ends that run with a clear error, never a hung stream.
    expect(await copilotkit.isRunning(threadId)).toBe(true);
    const refused = await send(agent, "too soon");
    expect(refused.events.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "agent.incomplete" });
    expect((await waitForRunEnd(user.apiKey, runIdOf(refused.events))).status).toBe("failed");
    // Once the framework's run is over, the thread takes new turns again.
    await waitFor(async () => !(await copilotkit.isRunning(threadId)), 15_000);
    expect((await send(agent, "right after stop")).answer).toBe("You said: right after stop");
  });
});

describe("a CopilotKit run outlives its client", () => {
  it("rejoins a running answer after a reload: the thread, then the run's events from its start", async () => {
    const user = await userBoundTo(runnerId);
    const threadId = randomUUID();
    const before = newAgent(user.apiKey, threadId);
    await send(before, "earlier turn");
    const word = `rejoin${randomUUID().slice(0, 8)}`;
    const text = `${word} ${"one two three four five six seven eight nine ten ".repeat(3)}`;
    // The page goes away mid-answer (its request is cut, as a reload cuts it)...
    const cut = await send(before, paced(80, text), {
      onTextMessageContentEvent: ({ textMessageBuffer }) => void (textMessageBuffer.includes(word) && before.abortRun()),
    });
    // ...and the reloaded page, holding nothing, posts to the thread at once and follows the run.
    const after = newAgent(user.apiKey, threadId);
    const events: BaseEvent[] = [];
    await after.runAgent({}, { onEvent: ({ event }) => void events.push(event) });
    await verified(events);
    expect(events.slice(0, 2).map((e) => e.type)).toEqual(["RUN_STARTED", "MESSAGES_SNAPSHOT"]);
    expect(events.at(-1)?.type).toBe("RUN_FINISHED");
    expect(after.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(after.messages.at(-1)?.content).toBe(`You said: ${text.trim()}`);
    expect((await waitForRunEnd(user.apiKey, runIdOf(cut.events))).status).toBe("completed");
    // The agent ran the turn once: the rejoin followed Dispatch's log, it did not ask the agent again.
    expect(copilotkit.requests.filter((r) => r.threadId === threadId)).toHaveLength(2);
  });
});
