import { EventType } from "@ag-ui/core";
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { parseRunAgentInput } from "@/server/protocols/ag-ui/run-input";
import { acceptRun } from "@/server/runs/accept";
import { executeRun } from "@/server/runs/execute";
import { runHandle } from "@/server/runs/handle";
import type { Runner } from "@/server/kernel/runs";
import { runProjectCli } from "@/server/tools/project-cli/tool";
import { baseUrl, createTestUser } from "@/test/helpers";
import { signInOverHttp, trpcGet } from "@/test/http-session";
import { runInput } from "@/test/runs";
import { deleteThread, getThreadView, listThreads, renameThread } from "./service/threads";

type TestUser = Awaited<ReturnType<typeof createTestUser>>;
let owner: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  [owner, stranger] = await Promise.all([createTestUser(), createTestUser()]);
});

function trpcPost(path: string, input: unknown, cookie: string | null): Promise<Response> {
  return fetch(`${baseUrl()}/api/trpc/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) },
    body: JSON.stringify({ json: input }),
  });
}

/** Records a finished run with `text` as its user message in a new (or given) thread. */
async function chat(user: TestUser, text: string, threadId: string = randomUUID()) {
  const parsed = parseRunAgentInput(JSON.stringify(runInput({ threadId }, text)));
  if (!parsed.ok) throw new Error(parsed.message);
  const { run } = await acceptRun({ userId: user.id, input: parsed.input, protocol: "ag-ui", runner: "test" });
  return { run, input: parsed.input, threadId };
}

/** A runner that answers a first sentence, then waits until it is cancelled. */
const hangs: Runner = {
  id: "test:hang",
  run: ({ signal, emit }) =>
    new Promise((resolve) => {
      emit({ type: EventType.TEXT_MESSAGE_START, messageId: "first", role: "assistant" });
      emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "first", delta: "Working on it." });
      emit({ type: EventType.TEXT_MESSAGE_END, messageId: "first" });
      emit({ type: EventType.TEXT_MESSAGE_START, messageId: "second", role: "assistant" });
      emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "second", delta: "still going" });
      signal.addEventListener("abort", () => resolve({}));
    }),
};

async function waitForStatus(runId: string, status: string) {
  for (let i = 0; i < 2000; i++) {
    const { rows } = await getPool().query<{ status: string }>("select status from runs where id = $1", [runId]);
    if (rows[0]?.status === status) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`run ${runId} never reached ${status}`);
}

describe("listing threads", () => {
  it("pages through the user's own threads, newest activity first, without gaps or repeats", async () => {
    const user = await createTestUser();
    const created: string[] = [];
    for (let i = 0; i < 7; i++) created.push((await chat(user, `thread number ${i}`)).threadId);
    await chat(stranger, "not yours");
    const seen: { id: string; title: string }[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const result: Awaited<ReturnType<typeof listThreads>> = await listThreads({ userId: user.id, limit: 3, cursor });
      seen.push(...result.items);
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    expect(seen.map((t) => t.id)).toEqual([...created].reverse());
    expect(seen[0]?.title).toBe("thread number 6");
  });

  it("rejects a cursor it did not hand out", async () => {
    await expect(listThreads({ userId: owner.id, limit: 5, cursor: "1' or 1=1" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});

describe("renaming a thread", () => {
  it("renames the owner's thread and refuses anyone else's", async () => {
    const { threadId } = await chat(owner, "original title");
    await expect(renameThread({ userId: stranger.id, id: threadId, title: "hijacked" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(renameThread({ userId: owner.id, id: threadId, title: "   " })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect((await renameThread({ userId: owner.id, id: threadId, title: "  Trip   planning " })).title).toBe("Trip planning");
    const list = await listThreads({ userId: owner.id, limit: 100 });
    expect(list.items.find((t) => t.id === threadId)?.title).toBe("Trip planning");
  });
});

describe("deleting a thread", () => {
  it("deletes the owner's thread with its messages, runs and their tool calls' records, and nobody else's", async () => {
    const { threadId, run, input } = await chat(owner, "delete me");
    await executeRun(runHandle(run), input, { id: "test:noop", run: async () => ({}) });
    const write = await runProjectCli({ userId: owner.id, runId: run.id, toolCallId: "call_forget", args: { module: "memory", method: "update", input: { key: "gone", value: "soon" } } });
    expect(write.output.status).toBe("success");
    await expect(deleteThread({ userId: stranger.id, id: threadId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await deleteThread({ userId: owner.id, id: threadId });
    const left = await getPool().query(
      `select (select count(*) from threads where id = $1)::int as threads, (select count(*) from messages where thread_id = $1)::int as messages,
              (select count(*) from runs where thread_id = $1)::int as runs, (select count(*) from tool_effects where run_id = $2)::int as effects`,
      [threadId, run.id],
    );
    expect(left.rows[0]).toEqual({ threads: 0, messages: 0, runs: 0, effects: 0 });
    await expect(deleteThread({ userId: owner.id, id: threadId })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("cancels a run still going in the thread before deleting it", async () => {
    const { threadId, run, input } = await chat(owner, "long task");
    const execution = executeRun(runHandle(run), input, hangs);
    await waitForStatus(run.id, "running");
    const list = await listThreads({ userId: owner.id, limit: 100 });
    expect(list.items.find((t) => t.id === threadId)?.running).toBe(true);
    await deleteThread({ userId: owner.id, id: threadId });
    await execution;
    const { rows } = await getPool().query("select 1 from threads where id = $1", [threadId]);
    expect(rows).toHaveLength(0);
  });
});

describe("the chat page's view of a thread", () => {
  it("leaves the answer of a run in progress out of history, for the page to replay it live", async () => {
    const { threadId, run, input } = await chat(owner, "first question");
    await executeRun(runHandle(run), input, {
      id: "test:answer",
      run: async ({ emit }) => {
        emit({ type: EventType.TEXT_MESSAGE_START, messageId: "a1", role: "assistant" });
        emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "a1", delta: "First answer" });
        emit({ type: EventType.TEXT_MESSAGE_END, messageId: "a1" });
        return {};
      },
    });
    const second = await chat(owner, "second question", threadId);
    const execution = executeRun(runHandle(second.run), second.input, hangs);
    await waitForStatus(second.run.id, "running");
    // The hanging runner's first sentence lands in the thread's messages once persisted.
    for (let i = 0; i < 2000; i++) {
      const { rowCount } = await getPool().query("select 1 from messages where thread_id = $1 and message_id = 'first'", [threadId]);
      if (rowCount) break;
      await new Promise((r) => setImmediate(r));
    }

    const view = await getThreadView({ userId: owner.id, threadId });
    expect(view.activeRun).toEqual({ runId: second.run.runId });
    expect(view.history.messages.map((m) => `${m.role}:${m.content}`)).toEqual(["user:first question", "assistant:First answer", "user:second question"]);

    await deleteThread({ userId: owner.id, id: threadId });
    await execution;
  });

  it("treats an unused id as a new chat and someone else's thread as not found", async () => {
    const fresh = await getThreadView({ userId: owner.id, threadId: randomUUID() });
    expect(fresh).toMatchObject({ thread: null, activeRun: null, history: { messages: [] } });
    const { threadId } = await chat(owner, "private");
    await expect(getThreadView({ userId: stranger.id, threadId })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

describe("the threads tRPC API over HTTP", () => {
  it("serves only a signed-in user, and only their own threads", async () => {
    const anonymous = await trpcGet("threads.list", { limit: 5 });
    expect(anonymous.status).toBe(401);

    const { threadId } = await chat(owner, "owner's secret plans");
    const cookie = await signInOverHttp(stranger.email, stranger.password);
    expect(cookie).not.toBeNull();
    const list = await trpcGet("threads.list", { limit: 100 }, { cookie: cookie! });
    expect(list.status).toBe(200);
    const body = (await list.json()) as { result: { data: { json: { items: { id: string }[] } } } };
    expect(body.result.data.json.items.map((t) => t.id)).not.toContain(threadId);

    expect((await trpcPost("threads.rename", { id: threadId, title: "mine now" }, cookie)).status).toBe(404);
    expect((await trpcPost("threads.delete", { id: threadId }, cookie)).status).toBe(404);
    expect((await trpcPost("threads.delete", { id: threadId }, null)).status).toBe(401);
    expect((await listThreads({ userId: owner.id, limit: 100 })).items.find((t) => t.id === threadId)?.title).toBe("owner's secret plans");

    const ownerCookie = await signInOverHttp(owner.email, owner.password);
    const renamed = await trpcPost("threads.rename", { id: threadId, title: "Renamed over HTTP" }, ownerCookie);
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toMatchObject({ result: { data: { json: { id: threadId, title: "Renamed over HTTP" } } } });
  });
});
