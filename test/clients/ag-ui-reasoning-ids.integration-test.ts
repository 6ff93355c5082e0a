// The unmodified @ag-ui/client 1.0.0 HttpAgent against POST /api/v1/ag-ui, for what issue #40
// asks of reasoning models and of ids: the model's thinking streams as AG-UI 1.0 reasoning
// events and stays in the thread, and ids are any string AG-UI allows, scoped to their owner.
// Every stream the agent reads passes its own verifyEvents (the HttpAgent pipeline applies it);
// each is also checked again here, collected, by verifyEvents on its own.
import { HttpAgent, verifyEvents, type BaseEvent } from "@ag-ui/client";
import { randomUUID } from "node:crypto";
import { from, lastValueFrom, toArray } from "rxjs";
import { beforeAll, describe, expect, it } from "vitest";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { collectSse } from "@/test/sse";
import { agUiUrl, ECHO_TURN, rolesSeenByModel, waitForRunEnd } from "./dispatch";

type User = { apiKey: string };
let alice: User;
let bob: User;
beforeAll(async () => {
  [alice, bob] = await Promise.all([createTestUser(), createTestUser()]);
});

const agentOn = (user: User, threadId: string) => new HttpAgent({ url: agUiUrl(), headers: bearer(user.apiKey), threadId });

/** Adds the user's message, runs, and returns every event of the run, checked once more by verifyEvents. */
async function send(agent: HttpAgent, text: string, opts: { messageId?: string; runId?: string } = {}): Promise<BaseEvent[]> {
  agent.addMessage({ id: opts.messageId ?? randomUUID(), role: "user", content: text });
  return run(agent, opts.runId);
}

async function run(agent: HttpAgent, runId?: string): Promise<BaseEvent[]> {
  const events: BaseEvent[] = [];
  await agent.runAgent(runId ? { runId } : {}, { onEvent: ({ event }) => void events.push(event) });
  await lastValueFrom(from(events).pipe(verifyEvents(false), toArray()));
  return events;
}

type HistoryMessage = { id: string; role: string; content: string; durationMs?: number | null };
async function history(user: User, threadId: string, query = ""): Promise<{ status: number; threadId?: string; messages?: HistoryMessage[] }> {
  const res = await fetch(`${baseUrl()}/api/v1/agent/history?threadId=${encodeURIComponent(threadId)}${query}`, { headers: bearer(user.apiKey) });
  return res.ok ? { status: res.status, ...((await res.json()) as { threadId: string; messages: HistoryMessage[] }) } : { status: res.status };
}

const THOUGHT = "The user greets me, so I greet back.";
const contentOf = (message: { content?: unknown } | undefined) => (typeof message?.content === "string" ? message.content : "");

describe("reasoning on POST /api/v1/ag-ui", () => {
  it("streams the model's thinking before its answer, and keeps it in the thread, the snapshot and the history", async () => {
    const threadId = randomUUID();
    const agent = agentOn(alice, threadId);
    const events = await send(agent, `[[think:${THOUGHT}]] hello`);

    const types: string[] = events.map((e) => e.type);
    const firstText = types.indexOf("TEXT_MESSAGE_START");
    expect(types.slice(0, 3)).toEqual(["RUN_STARTED", "REASONING_START", "REASONING_MESSAGE_START"]);
    expect(types.lastIndexOf("REASONING_END")).toBe(firstText - 1);
    const thought = events.flatMap((e) => (e.type === "REASONING_MESSAGE_CONTENT" ? [(e as unknown as { delta: string }).delta] : [])).join("");
    expect(thought).toBe(THOUGHT);
    // Counted as before: the reasoning tokens are in the run's usage.
    const finished = events.at(-1) as unknown as { type: string; usage?: { reasoningTokens?: number }[] };
    expect(finished.type).toBe("RUN_FINISHED");
    expect(finished.usage?.[0]?.reasoningTokens).toBe(THOUGHT.split(" ").length);

    // The client holds the thought as a reasoning message before the answer.
    expect(agent.messages.map((m) => m.role)).toEqual(["user", "reasoning", "assistant"]);
    expect(contentOf(agent.messages[1])).toBe(THOUGHT);
    expect(contentOf(agent.messages[2])).toBe("You said: hello");

    // A reload gets it back in the MESSAGES_SNAPSHOT, with the same id, in the same place.
    const reloaded = agentOn(alice, threadId);
    expect((await run(reloaded)).map((e) => e.type)).toEqual(["RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]);
    expect(reloaded.messages.map((m) => [m.id, m.role, contentOf(m)])).toEqual(agent.messages.map((m) => [m.id, m.role, contentOf(m)]));

    // The history lists it when asked (the spec's page stays user, assistant and tool), with how long it took.
    const withReasoning = await history(alice, threadId, "&reasoning=true");
    expect(withReasoning.messages?.map((m) => m.role)).toEqual(["user", "reasoning", "assistant"]);
    expect(withReasoning.messages?.[1]).toMatchObject({ id: agent.messages[1]!.id, content: THOUGHT, durationMs: expect.any(Number) });
    expect((await history(alice, threadId)).messages?.map((m) => m.role)).toEqual(["user", "assistant"]);

    // The next turn goes on from the thread; the resent reasoning message is the client's view, not new input.
    await send(reloaded, ECHO_TURN);
    expect(rolesSeenByModel(contentOf(reloaded.messages.at(-1)))).toEqual(["user", "assistant", "user"]);
  });

  it("gives a page reloaded mid-thought the same thought, timed the same, then the answer", async () => {
    const threadId = randomUUID();
    const before = agentOn(alice, threadId);
    const seen: BaseEvent[] = [];
    before.addMessage({ id: randomUUID(), role: "user", content: `[[delay:120]] [[think:${THOUGHT}]] slow hello` });
    // The page goes away while the model thinks, as a reload cuts its request...
    await before.runAgent({}, {
      onEvent: ({ event }) => {
        seen.push(event);
        if (event.type === "REASONING_MESSAGE_CONTENT" && seen.filter((e) => e.type === event.type).length === 2) before.abortRun();
      },
    });
    expect(seen.map((e) => e.type)).not.toContain("REASONING_END");
    // ...and the reloaded page joins the run: the thought from its start, with the same id and time, then the answer.
    const after = agentOn(alice, threadId);
    const events = await run(after);
    const start = (list: BaseEvent[]) => list.find((e) => e.type === "REASONING_MESSAGE_START") as unknown as { messageId: string; timestamp: number };
    expect(start(events)).toEqual(start(seen));
    expect(after.messages.map((m) => m.role)).toEqual(["user", "reasoning", "assistant"]);
    expect(contentOf(after.messages[1])).toBe(THOUGHT);
    expect(contentOf(after.messages[2])).toBe("You said: slow hello");
  });
});

describe("string ids on POST /api/v1/ag-ui", () => {
  it("takes any string ids and answers with the client's own, on events, snapshots and history", async () => {
    const threadId = `thread_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
    const agent = agentOn(alice, threadId);
    const events = await send(agent, "hello named thread", { messageId: "msg-1", runId: "run/1" });
    const ends = events.filter((e) => e.type === "RUN_STARTED" || e.type === "RUN_FINISHED") as unknown as { threadId: string; runId: string }[];
    expect(ends.map((e) => [e.threadId, e.runId])).toEqual([
      [threadId, "run/1"],
      [threadId, "run/1"],
    ]);
    expect(contentOf(agent.messages.at(-1))).toBe("You said: hello named thread");

    const reloaded = agentOn(alice, threadId);
    const snapshot = await run(reloaded);
    expect((snapshot[0] as unknown as { threadId: string }).threadId).toBe(threadId);
    expect(reloaded.messages.map((m) => m.id)).toEqual(agent.messages.map((m) => m.id));
    expect(reloaded.messages[0]?.id).toBe("msg-1");

    const page = await history(alice, threadId);
    expect(page).toMatchObject({ status: 200, threadId });
    expect(page.messages?.map((m) => m.id)[0]).toBe("msg-1");
  });

  it("keeps two users' threads of the same name apart", async () => {
    const name = `thread-${randomUUID().slice(0, 6)}`;
    await send(agentOn(alice, name), "alice speaks", { messageId: "m1", runId: "r1" });
    // Bob's thread of the same name is his own: no 404, and none of Alice's messages, with the same ids.
    const bobAgent = agentOn(bob, name);
    await send(bobAgent, "bob speaks", { messageId: "m1", runId: "r1" });
    expect(contentOf(bobAgent.messages.at(-1))).toBe("You said: bob speaks");

    const aliceView = agentOn(alice, name);
    await run(aliceView);
    expect(aliceView.messages.map(contentOf)).toEqual(["alice speaks", "You said: alice speaks"]);
    const bobView = agentOn(bob, name);
    await run(bobView);
    expect(bobView.messages.map(contentOf)).toEqual(["bob speaks", "You said: bob speaks"]);
  });

  it("treats the same runId on the same named thread as the same run", async () => {
    const threadId = `lg-thread-${randomUUID().slice(0, 8)}`;
    const body = { threadId, runId: "run-once", messages: [{ id: "u-once", role: "user", content: "only once" }], tools: [], context: [] };
    const post = () =>
      fetch(agUiUrl(), { method: "POST", headers: { ...bearer(alice.apiKey), "content-type": "application/json", accept: "application/json" }, body: JSON.stringify(body) });
    const [first, second] = [await post(), await post()];
    expect([first.status, second.status]).toEqual([202, 202]);
    const [a, b] = (await Promise.all([first.json(), second.json()])) as { taskId: string; threadId: string }[];
    expect(b!.taskId).toBe(a!.taskId);
    expect(a!.threadId).toBe(threadId);
  });

  it("starts a run queued on a named thread with the client's name on its events", async () => {
    const threadId = `queue-${randomUUID().slice(0, 8)}`;
    const post = (runId: string, text: string, strategy?: string) =>
      fetch(agUiUrl(), {
        method: "POST",
        headers: { ...bearer(alice.apiKey), "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ threadId, runId, messages: [{ id: `u-${runId}`, role: "user", content: text }], forwardedProps: strategy ? { multitaskStrategy: strategy } : {} }),
      });
    expect((await post("first", "[[delay:100]] one two three four five")).status).toBe(202);
    const queued = await post("second", "after it", "enqueue");
    expect(await queued.json()).toMatchObject({ threadId, status: "queued" });
    expect((await waitForRunEnd(alice.apiKey, "second")).status).toBe("completed");
    const res = await fetch(`${baseUrl()}/api/v1/agent/runs/second/events`, { headers: { ...bearer(alice.apiKey), accept: "text/event-stream" } });
    const events = (await collectSse(res)).map((frame) => JSON.parse(frame.data) as { type: string; threadId?: string });
    expect(events.filter((e) => e.type === "RUN_STARTED" || e.type === "RUN_FINISHED").map((e) => e.threadId)).toEqual([threadId, threadId]);
  });

  it("refuses ids it cannot keep as sent, with a 400 that names the field", async () => {
    const post = (body: object) =>
      fetch(agUiUrl(), { method: "POST", headers: { ...bearer(alice.apiKey), "content-type": "application/json", accept: "application/json" }, body: JSON.stringify(body) });
    const base = { threadId: "thread-ok", runId: randomUUID(), messages: [{ id: "u1", role: "user", content: "hi" }] };
    const cases: [object, string][] = [
      [{ ...base, threadId: "bad\u0000thread" }, "threadId"],
      [{ ...base, threadId: "x".repeat(257) }, "threadId"],
      [{ ...base, threadId: "" }, "threadId"],
      [{ ...base, messages: [{ id: "u\u0007", role: "user", content: "hi" }] }, "messages[0].id"],
      [{ ...base, messages: [{ id: "\ud800", role: "user", content: "hi" }] }, "messages[0].id"],
    ];
    for (const [body, field] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(((await res.json()) as { error: { details?: { field?: string } } }).error.details?.field).toBe(field);
    }
  });
});
