// A real agent framework behind Dispatch: a Mastra agent served over AG-UI by its own adapter
// (@ag-ui/mastra, in ./mastra: npm ci there), registered as an AG-UI agent and bound to a user.
// The unmodified @ag-ui/client HttpAgent talks to Dispatch's POST /api/v1/ag-ui; Dispatch relays
// the Mastra agent's events through its event log. Also: the seed door, stop, and broken agents.
import { HttpAgent, type BaseEvent, type Interrupt } from "@ag-ui/client";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { registerAgent } from "@/server/runner-host/service";
import { StreamObjectSchema } from "@/server/protocols/agent-api/response";
import { baseUrl, bearer } from "@/test/helpers";
import { getJson, paced, postRun, runInput, waitForRunEnd } from "@/test/runs";
import { collectSse } from "@/test/sse";
import { waitFor } from "@/test/wait";
import { agUiUrl } from "@/test/clients/dispatch";
import { getPool } from "@/server/db";
import { startMastraAgent, SEND_MAIL_TOOL, WEATHER_TOOL, type MastraAgentServer } from "./mastra/agent";
import { runIdOf, send, userBoundTo, verified } from "./turns";

let mastra: MastraAgentServer;
let runnerId = "";

beforeAll(async () => {
  mastra = await startMastraAgent({ baseUrl: inject("llmBaseUrl"), apiKey: inject("llmApiKey"), model: inject("llmModel") });
  ({ runnerId } = await registerAgent({ url: mastra.url, name: `mastra-${randomUUID().slice(0, 8)}`, headers: { authorization: "Bearer agent-token" } }));
});

afterAll(async () => {
  await mastra?.close();
});

describe("a Mastra agent (@ag-ui/mastra) behind Dispatch", () => {
  it("holds a three-turn conversation with a tool call through /api/v1/ag-ui, kept in /history", async () => {
    const user = await userBoundTo(runnerId);
    const threadId = randomUUID();
    const agent = new HttpAgent({ url: agUiUrl(), headers: bearer(user.apiKey), threadId });

    const one = await send(agent, "hello one");
    expect(one.answer).toBe("You said: hello one");
    const two = await send(agent, `[[call:${WEATHER_TOOL} {"city":"Paris"}]] the weather`);
    expect(two.events.map((e) => e.type)).toEqual(expect.arrayContaining(["TOOL_CALL_START", "TOOL_CALL_END", "TOOL_CALL_RESULT"]));
    expect(two.answer).toMatch(/^Tool said: .*sunny in Paris/);
    const three = await send(agent, "[[show:messages]] and three");
    // The model saw the whole thread once, as Dispatch sent it to the stateless agent.
    expect([...three.answer.matchAll(/^(user|assistant|tool): /gm)].map((m) => m[1])).toEqual(["user", "assistant", "user", "assistant", "tool", "assistant", "user"]);

    // What the agent got: the thread from Dispatch's records, under the client's thread id, with its headers' secret never echoed.
    const sent = mastra.requests.filter((r) => r.threadId === threadId);
    expect(sent).toHaveLength(3);
    expect(sent[2]!.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "tool", "assistant", "user"]);
    expect(sent[2]!.messages[3]).toMatchObject({ role: "assistant", toolCalls: [{ function: { name: WEATHER_TOOL, arguments: '{"city":"Paris"}' } }] });

    const history = (await (await getJson(user.apiKey, `/api/v1/agent/history?threadId=${threadId}`)).json()) as { messages: { role: string; content: string }[] };
    expect(history.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "tool", "assistant", "user", "assistant"]);
    expect(history.messages[3]!.content).toContain("sunny in Paris");
    for (const turn of [one, two, three]) {
      const run = await waitForRunEnd(user.apiKey, runIdOf(turn.events));
      // Usage as the agent reported it on RUN_FINISHED (Mastra reports the model's).
      expect(run).toMatchObject({ status: "completed", usage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number) } });
    }
  });

  it("answers through the seed door (POST /api/v1/agent/runs) too", async () => {
    const user = await userBoundTo(runnerId);
    const res = await postRun(user.apiKey, runInput({}, "through the seed door"), { stream: true });
    expect(res.status).toBe(200);
    const frames = (await collectSse(res)).map((f) => JSON.parse(f.data) as { type: string; delta?: string });
    expect(frames.filter((f) => f.type === "TEXT_MESSAGE_CONTENT").map((f) => f.delta).join("")).toBe("You said: through the seed door");
    expect(frames.at(-1)?.type).toBe("RUN_FINISHED");
    await verified(frames as BaseEvent[]);
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

  it("passes the client's own tools to the agent and its answer back in the next run", async () => {
    const user = await userBoundTo(runnerId);
    const agent = new HttpAgent({ url: agUiUrl(), headers: bearer(user.apiKey), threadId: randomUUID() });
    const tools = [{ name: "pick_city", description: "Ask the user to pick a city", parameters: { type: "object", properties: { hint: { type: "string" } } } }];
    agent.addMessage({ id: randomUUID(), role: "user", content: '[[call:pick_city {"hint":"north"}]] pick one' });
    await agent.runAgent({ tools });
    const call = agent.messages.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []) : [])).find((c) => c.function.name === "pick_city");
    expect(JSON.parse(call!.function.arguments)).toEqual({ hint: "north" });
    expect(mastra.requests.at(-1)!.tools.map((t) => t.name)).toEqual(["pick_city"]);
    agent.addMessage({ id: randomUUID(), role: "tool", toolCallId: call!.id, content: "Bergen" });
    const answered = await agent.runAgent({ tools });
    expect(answered.newMessages.at(-1)).toMatchObject({ role: "assistant", content: "Tool said: Bergen" });
    // The agent got the call and the client's answer from the thread Dispatch keeps.
    expect(mastra.requests.at(-1)!.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  });

  it("stops a run mid-answer: the agent's request is cut and the run ends cancelled", async () => {
    const user = await userBoundTo(runnerId);
    const agent = new HttpAgent({ url: agUiUrl(), headers: bearer(user.apiKey), threadId: randomUUID() });
    const word = `stop${randomUUID().slice(0, 8)}`;
    const turn = await send(agent, paced(150, `${word} ${"one two three four five six seven eight nine ten ".repeat(3)}`), {
      onTextMessageContentEvent: ({ textMessageBuffer }) => void (textMessageBuffer.includes(word) && agent.abortRun()),
    });
    expect(turn.answer.startsWith(`You said: ${word}`)).toBe(true);
    expect((await waitForRunEnd(user.apiKey, runIdOf(turn.events))).status).toBe("cancelled");
    await waitFor(() => mastra.cut.includes(runIdOf(turn.events)));
    expect((await send(agent, "right after stop")).answer).toBe("You said: right after stop");
  });
});

describe("a Mastra tool that suspends for a person (human in the loop)", () => {
  it("waits as a durable approval; answered a day later, Mastra resumes the tool from resume[]", async () => {
    const user = await userBoundTo(runnerId);
    const agent = new HttpAgent({ url: agUiUrl(), headers: bearer(user.apiKey), threadId: randomUUID() });
    let interrupts: Interrupt[] = [];
    const asked = await send(agent, `[[call:${SEND_MAIL_TOOL} {"to":"ana@example.com"}]] mail ana`, {
      onRunFinishedEvent: (params) => void (params.outcome === "interrupt" && (interrupts = params.interrupts)),
    });
    expect(asked.error).toBeNull();
    expect(interrupts).toHaveLength(1);
    expect(interrupts[0]).toMatchObject({ reason: "mastra:tool_suspend", metadata: { approval: { status: "pending" } } });
    const firstRun = mastra.requests.at(-1)!;
    // A day later (23 hours of a request's 24), by the clock of the approval.
    await getPool().query(`update approvals set created_at = created_at - interval '23 hours', expires_at = expires_at - interval '23 hours' where id = $1`, [interrupts[0]!.id]);
    const events: BaseEvent[] = [];
    await agent.runAgent({ resume: [{ interruptId: interrupts[0]!.id, status: "resolved", payload: { approved: true } }] }, { onEvent: ({ event }) => void events.push(event) });
    await verified(events);
    const resumed = mastra.requests.at(-1)!;
    expect(resumed.resume).toEqual([{ interruptId: `${firstRun.runId}::${interrupts[0]!.toolCallId}`, status: "resolved", payload: { approved: true } }]);
    expect(events.at(-1), JSON.stringify(events.map((e) => e.type === "RUN_ERROR" ? e : e.type))).toMatchObject({ type: "RUN_FINISHED" });
    const result = events.find((e) => e.type === "TOOL_CALL_RESULT") as unknown as { content: string } | undefined;
    expect(result?.content).toContain('"sent":true');
  });
});

describe("a Mastra run outlives its client", () => {
  it("rejoins a running answer after a reload: the thread, then the run's events from its start", async () => {
    const user = await userBoundTo(runnerId);
    const threadId = randomUUID();
    const before = new HttpAgent({ url: agUiUrl(), headers: bearer(user.apiKey), threadId });
    await send(before, "earlier turn");
    const word = `rejoin${randomUUID().slice(0, 8)}`;
    // The page goes away mid-answer (its request is cut, as a reload cuts it)...
    const cut = await send(before, paced(120, `${word} ${"one two three four five six seven eight nine ten ".repeat(3)}`), {
      onTextMessageContentEvent: ({ textMessageBuffer }) => void (textMessageBuffer.includes(word) && before.abortRun()),
    });
    // ...and the reloaded page, holding nothing, posts to the thread at once and follows the run.
    const after = new HttpAgent({ url: agUiUrl(), headers: bearer(user.apiKey), threadId });
    const events: BaseEvent[] = [];
    await after.runAgent({}, { onEvent: ({ event }) => void events.push(event) });
    await verified(events);
    expect(events.slice(0, 2).map((e) => e.type)).toEqual(["RUN_STARTED", "MESSAGES_SNAPSHOT"]);
    expect(events.at(-1)?.type).toBe("RUN_FINISHED");
    expect(after.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(after.messages.at(-1)?.content).toBe(`You said: ${word} ${"one two three four five six seven eight nine ten ".repeat(3).trim()}`);
    expect((await waitForRunEnd(user.apiKey, runIdOf(cut.events))).status).toBe("completed");
    // The agent ran the turn once: the rejoin followed Dispatch's log, it did not ask the agent again.
    expect(mastra.requests.filter((r) => r.threadId === threadId)).toHaveLength(2);
  });
});

describe("an AG-UI agent that breaks", () => {
  async function brokenAgent(url: string, stallSeconds?: number) {
    const { runnerId: id } = await registerAgent({ url, name: `broken-${randomUUID().slice(0, 8)}`, stallSeconds });
    const user = await userBoundTo(id);
    const turn = await send(new HttpAgent({ url: agUiUrl(), headers: bearer(user.apiKey), threadId: randomUUID() }), "hello");
    const error = turn.events.find((e) => e.type === "RUN_ERROR") as unknown as { code: string; message: string };
    return { turn, error, run: await waitForRunEnd(user.apiKey, runIdOf(turn.events)) };
  }

  it("ends the run with RUN_ERROR when the agent answers 500", async () => {
    const { turn, error, run } = await brokenAgent(mastra.fail);
    expect(turn.events.at(-1)?.type).toBe("RUN_ERROR");
    expect(error).toMatchObject({ code: "agent.http_error", message: "The agent answered HTTP 500: the agent broke" });
    expect(run.status).toBe("failed");
  });

  it("ends the run with RUN_ERROR when the agent stalls", async () => {
    const { error, run } = await brokenAgent(mastra.stall, 1);
    expect(error).toMatchObject({ code: "agent.stalled", message: "The agent sent no event for 1 s; the run was stopped" });
    expect(run.status).toBe("failed");
  });
});
