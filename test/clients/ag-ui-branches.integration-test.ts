// The unmodified @ag-ui/client 1.0.0 HttpAgent against POST /api/v1/ag-ui, for what issue #40
// asks of regenerate and edit (docs/branches.md): a resend without the last answer regenerates it
// (the new answer on the thread's current branch, the old one kept); an edited earlier user
// message forks the thread there (the old branch kept and reachable: switching back works).
// Every stream is checked by verifyEvents (the HttpAgent pipeline applies it, and again here).
import { HttpAgent, verifyEvents, type BaseEvent, type Message } from "@ag-ui/client";
import { randomUUID } from "node:crypto";
import { from, lastValueFrom, toArray } from "rxjs";
import { beforeAll, describe, expect, it } from "vitest";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { agUiUrl, rolesSeenByModel } from "./dispatch";

type User = { apiKey: string };
let alice: User;
let bob: User;
beforeAll(async () => {
  [alice, bob] = await Promise.all([createTestUser(), createTestUser()]);
});

const agentOn = (user: User, threadId: string) => new HttpAgent({ url: agUiUrl(), headers: bearer(user.apiKey), threadId });
const contentOf = (message: { content?: unknown } | undefined) => (typeof message?.content === "string" ? message.content : "");

async function run(agent: HttpAgent, runId?: string): Promise<BaseEvent[]> {
  const events: BaseEvent[] = [];
  await agent.runAgent(runId ? { runId } : {}, { onEvent: ({ event }) => void events.push(event) });
  await lastValueFrom(from(events).pipe(verifyEvents(false), toArray()));
  return events;
}

async function send(agent: HttpAgent, text: string): Promise<BaseEvent[]> {
  agent.addMessage({ id: randomUUID(), role: "user", content: text });
  return run(agent);
}

type BranchPoint = { messageId: string; index: number; count: number; siblingIds: string[] };
type Page = { messages: { id: string; role: string; content: string }[]; branches?: BranchPoint[] };

async function history(user: User, threadId: string): Promise<Page> {
  const res = await fetch(`${baseUrl()}/api/v1/agent/history?threadId=${threadId}`, { headers: bearer(user.apiKey) });
  expect(res.status).toBe(200);
  return (await res.json()) as Page;
}

const switchBranch = (user: User, threadId: string, siblingId: string) =>
  fetch(`${baseUrl()}/api/v1/threads/${threadId}/branch`, { method: "POST", headers: { ...bearer(user.apiKey), "content-type": "application/json" }, body: JSON.stringify({ siblingId }) });

const texts = (page: Page) => page.messages.map((m) => `${m.role}: ${m.content}`);
const answerOf = (events: BaseEvent[]) =>
  events.flatMap((e) => (e.type === "TEXT_MESSAGE_CONTENT" ? [(e as unknown as { delta: string }).delta] : [])).join("");

describe("regenerate on POST /api/v1/ag-ui", () => {
  it("answers again when the client resends the thread without its last answer; history shows the new one, the old one stays", async () => {
    const threadId = randomUUID();
    const agent = agentOn(alice, threadId);
    await send(agent, "[[show:messages]] what is new");
    const [question, oldAnswer] = agent.messages as [Message, Message];

    // CopilotKit's regenerate: the conversation without its last answer, as a new run.
    agent.setMessages([question]);
    const runId = randomUUID();
    const events = await run(agent, runId);
    expect(events.map((e) => e.type)).toContain("TEXT_MESSAGE_START");
    expect(events.map((e) => e.type)).not.toContain("MESSAGES_SNAPSHOT");
    // The model answered the question alone: the old answer is not in what it was sent.
    expect(rolesSeenByModel(answerOf(events))).toEqual(["user"]);
    const newAnswer = agent.messages.at(-1)!;
    expect(newAnswer.id).not.toBe(oldAnswer.id);

    const page = await history(alice, threadId);
    expect(page.messages.map((m) => m.id)).toEqual([question.id, newAnswer.id]);
    expect(page.branches).toEqual([{ messageId: newAnswer.id, index: 1, count: 2, siblingIds: [expect.any(String), expect.any(String)] }]);

    // The same request again (its runId) is the same run: no third answer.
    agent.setMessages([question]);
    await run(agent, runId);
    expect((await history(alice, threadId)).branches?.[0]?.count).toBe(2);

    // The old answer stays in the log: switching to it shows it again.
    const res = await switchBranch(alice, threadId, page.branches![0]!.siblingIds[0]!);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ threadId, messageId: oldAnswer.id, leafMessageId: oldAnswer.id });
    const back = await history(alice, threadId);
    expect(back.messages.map((m) => m.id)).toEqual([question.id, oldAnswer.id]);
    expect(back.branches?.[0]).toMatchObject({ messageId: oldAnswer.id, index: 0, count: 2 });
  });
});

describe("edit and branch on POST /api/v1/ag-ui", () => {
  it("forks at an edited earlier message, keeps the old branch reachable, and goes on from the one switched to", async () => {
    const threadId = randomUUID();
    const agent = agentOn(alice, threadId);
    await send(agent, "first question");
    await send(agent, "second question");
    const [first, firstAnswer, second] = agent.messages as [Message, Message, Message];

    // The user edits the second question: the client keeps its id, changes its text, drops what followed.
    agent.setMessages([first, firstAnswer, { ...second, content: "[[show:messages]] edited question" } as Message]);
    const events = await run(agent);
    expect(events.at(-1)?.type).toBe("RUN_FINISHED");
    // The model saw the thread up to the fork, then the edit.
    expect(answerOf(events).split("\n")).toEqual(["user: first question", "assistant: You said: first question", "user: [[show:messages]] edited question"]);

    const edited = await history(alice, threadId);
    expect(texts(edited)).toEqual([
      "user: first question",
      "assistant: You said: first question",
      "user: [[show:messages]] edited question",
      `assistant: ${answerOf(events)}`,
    ]);
    expect(edited.branches).toEqual([{ messageId: second.id, index: 1, count: 2, siblingIds: [expect.any(String), expect.any(String)] }]);

    // Another user cannot switch a branch of my thread.
    expect((await switchBranch(bob, threadId, edited.branches![0]!.siblingIds[0]!)).status).toBe(404);

    // Back to the old branch: its question and answer again, the edit kept as the other sibling.
    expect((await switchBranch(alice, threadId, edited.branches![0]!.siblingIds[0]!)).status).toBe(200);
    const old = await history(alice, threadId);
    expect(texts(old)).toEqual(["user: first question", "assistant: You said: first question", "user: second question", "assistant: You said: second question"]);
    expect(old.branches?.[0]).toMatchObject({ messageId: second.id, index: 0, count: 2 });

    // A reloaded client holds the old branch, and the next message goes on from it.
    const reloaded = agentOn(alice, threadId);
    const snapshot = await run(reloaded);
    expect(snapshot.map((e) => e.type)).toEqual(["RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]);
    expect(reloaded.messages.map(contentOf)).toEqual(["first question", "You said: first question", "second question", "You said: second question"]);
    const next = await send(reloaded, "[[show:messages]] and then");
    expect(answerOf(next).split("\n")).toEqual([
      "user: first question",
      "assistant: You said: first question",
      "user: second question",
      "assistant: You said: second question",
      "user: [[show:messages]] and then",
    ]);
  });

  it("forks where a client that holds only part of the branch sends a new message", async () => {
    const threadId = randomUUID();
    const agent = agentOn(alice, threadId);
    await send(agent, "first question");
    const held = [...agent.messages];
    await send(agent, "second question");
    // Another copy of the conversation, made before the second question, goes on from there.
    const other = agentOn(alice, threadId);
    other.setMessages(held);
    const events = await send(other, "[[show:messages]] instead");
    expect(answerOf(events).split("\n")).toEqual(["user: first question", "assistant: You said: first question", "user: [[show:messages]] instead"]);
    const page = await history(alice, threadId);
    expect(texts(page).slice(0, 3)).toEqual(["user: first question", "assistant: You said: first question", "user: [[show:messages]] instead"]);
    expect(page.branches?.[0]).toMatchObject({ messageId: other.messages[2]!.id, index: 1, count: 2 });
  });

  it("refuses a switch to a message of another thread, and to a thread that is not a UUID of mine", async () => {
    const threadId = randomUUID();
    await send(agentOn(alice, threadId), "hello");
    expect((await switchBranch(alice, threadId, randomUUID())).status).toBe(404);
    expect((await switchBranch(alice, "not-a-thread", randomUUID())).status).toBe(404);
    expect((await switchBranch(alice, threadId, "nope")).status).toBe(400);
  });
});

describe("branches on the seed door and while a run is going", () => {
  const seedRun = (user: User, body: object) =>
    fetch(`${baseUrl()}/api/v1/agent/runs`, { method: "POST", headers: { ...bearer(user.apiKey), "content-type": "application/json", accept: "text/event-stream" }, body: JSON.stringify(body) }).then(
      async (res) => ({ status: res.status, text: await res.text() }),
    );

  it("regenerates and replaces with forwardedProps.branch, as the web chat does", async () => {
    const threadId = randomUUID();
    const ask = (text: string, branch?: object) =>
      seedRun(alice, { threadId, runId: randomUUID(), messages: [{ id: randomUUID(), role: "user", content: text }], forwardedProps: branch ? { branch } : {} });
    expect((await ask("[[show:messages]] question")).status).toBe(200);
    const question = (await history(alice, threadId)).messages[0]!;

    // Regenerate: the request's own message (which the seed door's table requires) is not added.
    expect((await ask("ignored", { regenerate: question.id })).status).toBe(200);
    const regenerated = await history(alice, threadId);
    expect(texts(regenerated)).toEqual(["user: [[show:messages]] question", "assistant: user: [[show:messages]] question"]);
    expect(regenerated.branches?.[0]).toMatchObject({ index: 1, count: 2 });

    // Replace: the new question is a sibling of the old one.
    expect((await ask("another question", { replace: question.id })).status).toBe(200);
    const replaced = await history(alice, threadId);
    expect(texts(replaced)).toEqual(["user: another question", "assistant: You said: another question"]);
    expect(replaced.branches?.[0]).toMatchObject({ messageId: replaced.messages[0]!.id, index: 1, count: 2 });

    const bad = await seedRun(alice, { threadId, runId: randomUUID(), messages: [{ id: randomUUID(), role: "user", content: "x" }], forwardedProps: { branch: { fork: "x" } } });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("forwardedProps.branch");
  });

  it("refuses to switch a thread's branch while a run is going (409)", async () => {
    const threadId = randomUUID();
    const agent = agentOn(alice, threadId);
    await send(agent, "first");
    agent.setMessages([agent.messages[0]!]);
    await run(agent);
    const { branches } = await history(alice, threadId);
    const slow = agentOn(alice, threadId);
    slow.setMessages([...agent.messages]);
    slow.addMessage({ id: randomUUID(), role: "user", content: "[[delay:100]] one two three four five six" });
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const going = slow.runAgent({}, { onTextMessageContentEvent: () => started() });
    await running;
    expect((await switchBranch(alice, threadId, branches![0]!.siblingIds[0]!)).status).toBe(409);
    await going;
    expect((await switchBranch(alice, threadId, branches![0]!.siblingIds[0]!)).status).toBe(200);
  });
});
