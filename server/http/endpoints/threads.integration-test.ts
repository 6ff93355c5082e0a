import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { parseRunAgentInput } from "@/server/protocols/ag-ui/run-input";
import { acceptRun } from "@/server/runs/accept";
import { executeRun } from "@/server/runs/execute";
import { runHandle } from "@/server/runs/handle";
import type { Runner } from "@/server/kernel/runs";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { signInOverHttp } from "@/test/http-session";
import { pngBytes } from "@/test/images";
import { paced, postRun, runInput } from "@/test/runs";
import { appendMessage, createThread } from "@/test/thread-fixtures";
import { waitFor } from "@/test/wait";

type TestUser = Awaited<ReturnType<typeof createTestUser>>;
let owner: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  [owner, stranger] = await Promise.all([createTestUser(), createTestUser()]);
});

function api(key: string, path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
  return fetch(`${baseUrl()}/api/v1${path}`, {
    method: init.method ?? "GET",
    headers: { ...bearer(key), ...(init.body === undefined ? {} : { "content-type": "application/json" }), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

async function json<T = Record<string, unknown>>(res: Promise<Response> | Response, status = 200): Promise<T> {
  const response = await res;
  const body = (await response.json()) as T;
  expect(response.status, JSON.stringify(body)).toBe(status);
  return body;
}

/** A thread of `user`'s holding these messages, user and assistant in turn. */
async function threadWith(user: TestUser, title: string, messages: string[]): Promise<string> {
  const id = randomUUID();
  await createThread({ id, userId: user.id, title });
  for (const [i, content] of messages.entries()) {
    await appendMessage({ threadId: id, role: i % 2 === 0 ? "user" : "assistant", messageId: `m${i}`, runId: null, content, metadata: {} });
  }
  return id;
}

/** A run accepted in a new (or given) thread and executed to its end by `runner`. */
async function finishedRun(user: TestUser, text: string, threadId = randomUUID(), runner: Runner = { id: "test:noop", run: async () => ({}) }) {
  const parsed = parseRunAgentInput(JSON.stringify(runInput({ threadId }, text)));
  if (!parsed.ok) throw new Error(parsed.message);
  const { run } = await acceptRun({ userId: user.id, input: parsed.input, protocol: "ag-ui", runner: "test" });
  return { run, threadId, execution: executeRun(runHandle(run), parsed.input, runner) };
}

describe("listing threads", () => {
  it("pages through the caller's threads newest first, for an API key and for a browser session alike", async () => {
    const user = await createTestUser();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await threadWith(user, `thread ${i}`, [`message ${i}`]));
    await threadWith(stranger, "not yours", ["hidden"]);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: { id: string }[]; nextCursor: string | null } = await json(api(user.apiKey, `/threads?limit=2${cursor ? `&cursor=${cursor}` : ""}`));
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((t) => t.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());

    const cookie = await signInOverHttp(user.email, user.password);
    const viaSession = await json<{ items: { id: string }[] }>(fetch(`${baseUrl()}/api/v1/threads`, { headers: { cookie: cookie! } }));
    expect(viaSession.items.map((t) => t.id)).toEqual([...ids].reverse());
    const renamed = await fetch(`${baseUrl()}/api/v1/threads/${ids[0]}`, { method: "PATCH", headers: { cookie: cookie!, "content-type": "application/json" }, body: JSON.stringify({ title: "by session" }) });
    expect(await json(renamed)).toMatchObject({ id: ids[0], title: "by session" });
    expect((await fetch(`${baseUrl()}/api/v1/threads`)).status).toBe(401);
  });

  it("filters by tags and metadata, and refuses a malformed filter with the usual error shape", async () => {
    const user = await createTestUser();
    const [a, b] = [await threadWith(user, "a", ["a"]), await threadWith(user, "b", ["b"])];
    await json(api(user.apiKey, `/threads/${a}`, { method: "PATCH", body: { tags: ["work", "urgent", "work"], metadata: { project: "apollo", priority: 1 } } }));
    await json(api(user.apiKey, `/threads/${b}`, { method: "PATCH", body: { tags: ["work"], metadata: { project: "gemini" } } }));
    const ids = async (query: string) => (await json<{ items: { id: string }[] }>(api(user.apiKey, `/threads?${query}`))).items.map((t) => t.id);
    expect(await ids("tag=work")).toEqual([b, a]);
    expect(await ids("tag=work&tag=urgent")).toEqual([a]);
    expect(await ids(`metadata=${encodeURIComponent('{"project":"gemini"}')}`)).toEqual([b]);
    const thread = await json<{ tags: string[]; metadata: unknown }>(api(user.apiKey, `/threads/${a}`));
    expect(thread).toMatchObject({ tags: ["work", "urgent"], metadata: { project: "apollo", priority: 1 } });
    const refused = await json<{ error: { code: string; details: { field: string } } }>(api(user.apiKey, `/threads?metadata=not-json`), 400);
    expect(refused.error).toMatchObject({ code: "BAD_REQUEST", details: { field: "metadata" } });
    await json(api(user.apiKey, `/threads/${a}`, { method: "PATCH", body: { metadata: { nested: { no: 1 } } } }), 400);
    await json(api(user.apiKey, `/threads/${a}`, { method: "PATCH", body: {} }), 400);
    await json(api(user.apiKey, `/threads/${a}`, { method: "PATCH", body: { title: "   ", tags: ["lost"] } }), 400);
    expect(await json(api(user.apiKey, `/threads/${a}`))).toMatchObject({ title: "a", tags: ["work", "urgent"] });
  });
});

describe("another user's thread", () => {
  it("is not found through every endpoint, never forbidden, and stays as it was", async () => {
    const id = await threadWith(owner, "private", ["secret plans"]);
    for (const [method, path, body] of [
      ["GET", `/threads/${id}`],
      ["PATCH", `/threads/${id}`, { title: "hijacked" }],
      ["DELETE", `/threads/${id}`],
      ["POST", `/threads/${id}/fork`, {}],
      ["GET", `/threads/${id}/runs`],
      ["GET", `/threads/not-a-uuid`],
    ] as const) {
      const refused = await json<{ error: { code: string } }>(api(stranger.apiKey, path, { method, body }), 404);
      expect(refused.error.code, `${method} ${path}`).toBe("NOT_FOUND");
    }
    expect(await json(api(owner.apiKey, `/threads/${id}`))).toMatchObject({ id, title: "private" });
    const search = await json<{ items: unknown[] }>(api(stranger.apiKey, `/threads/search?q=secret`));
    expect(search.items).toEqual([]);
  });
});

describe("searching messages", () => {
  it("ranks the caller's matching messages, highlights the matches, and finds Chinese words", async () => {
    const user = await createTestUser();
    const weak = await threadWith(user, "weak", ["We talked about the budget once, then moved on to lunch and other topics entirely."]);
    const strong = await threadWith(user, "strong", ["Budget review: the budget is over budget."]);
    const chinese = await threadWith(user, "天气", ["今天天气很好，我们去公园吧", "好的"]);
    await threadWith(user, "unrelated", ["nothing to see here"]);
    const page = await json<{ items: { threadId: string; snippet: string; highlights: [number, number][]; rank: number; role: string }[] }>(api(user.apiKey, "/threads/search?q=budget"));
    expect(page.items.map((h) => h.threadId)).toEqual([strong, weak]);
    expect(page.items[0]!.rank).toBeGreaterThan(page.items[1]!.rank);
    const hit = page.items[0]!;
    expect(hit.highlights.map(([s, e]) => hit.snippet.slice(s, e).toLowerCase())).toEqual(["budget", "budget", "budget"]);

    const zh = await json<{ items: { threadId: string; snippet: string; highlights: [number, number][] }[] }>(api(user.apiKey, `/threads/search?q=${encodeURIComponent("天气")}`));
    expect(zh.items.map((h) => h.threadId)).toEqual([chinese]);
    expect(zh.items[0]!.snippet).toBe("今天天气很好，我们去公园吧");
    // ts_headline marks each query word wherever it occurs: here both 天 of 今天天气.
    expect(zh.items[0]!.highlights.map(([s, e]) => zh.items[0]!.snippet.slice(s, e))).toEqual(["天天气"]);
    // The characters of a word, not in that order, are no match.
    expect((await json<{ items: unknown[] }>(api(user.apiKey, `/threads/search?q=${encodeURIComponent("气天")}`))).items).toEqual([]);
    await json(api(user.apiKey, "/threads/search?q="), 400);
  });
});

describe("renaming and forking", () => {
  it("renames, then forks into a new thread of the caller's with the same messages and no runs", async () => {
    const { threadId, execution } = await finishedRun(owner, "plan the trip");
    await execution;
    await appendMessage({ threadId, role: "assistant", messageId: "a1", runId: null, content: "Here is a plan.", metadata: {} });
    const renamed = await json<{ title: string }>(api(owner.apiKey, `/threads/${threadId}`, { method: "PATCH", body: { title: "  Trip   plan " } }));
    expect(renamed.title).toBe("Trip plan");
    const fork = await json<{ id: string; title: string }>(api(owner.apiKey, `/threads/${threadId}/fork`, { method: "POST", body: {} }), 201);
    expect(fork).toMatchObject({ title: "Trip plan" });
    expect(fork.id).not.toBe(threadId);
    const history = async (id: string) =>
      (await json<{ messages: { role: string; content: string }[] }>(api(owner.apiKey, `/agent/history?threadId=${id}`))).messages.map((m) => `${m.role}:${m.content}`);
    expect(await history(fork.id)).toEqual(["user:plan the trip", "assistant:Here is a plan."]);
    expect(await history(fork.id)).toEqual(await history(threadId));
    expect((await json<{ items: unknown[] }>(api(owner.apiKey, `/threads/${fork.id}/runs`))).items).toEqual([]);
    expect((await json<{ items: unknown[] }>(api(owner.apiKey, `/threads/${threadId}/runs`))).items).toHaveLength(1);
  });
});

describe("a thread's runs", () => {
  it("lists them newest first, a page at a time", async () => {
    const first = await finishedRun(owner, "one");
    await first.execution;
    const runIds = [first.run.runId];
    for (const text of ["two", "three"]) {
      const next = await finishedRun(owner, text, first.threadId);
      await next.execution;
      runIds.push(next.run.runId);
    }
    const page1 = await json<{ items: { runId: string; status: string }[]; nextCursor: string }>(api(owner.apiKey, `/threads/${first.threadId}/runs?limit=2`));
    const page2 = await json<{ items: { runId: string }[]; nextCursor: null }>(api(owner.apiKey, `/threads/${first.threadId}/runs?limit=2&cursor=${page1.nextCursor}`));
    expect([...page1.items, ...page2.items].map((r) => r.runId)).toEqual([...runIds].reverse());
    expect(page1.items[0]!.status).toBe("completed");
    expect(page2.nextCursor).toBeNull();
  });
});

describe("deleting a thread", () => {
  it("deletes its messages, runs, events, approvals and attachments' bytes, and keeps what a fork still shows", async () => {
    const { threadId, run, execution } = await finishedRun(owner, "with a picture");
    await execution;
    const upload = async () => {
      const form = new FormData();
      form.append("threadId", threadId);
      form.append("file", new Blob([Buffer.from(pngBytes(Math.floor(Math.random() * 1000)))], { type: "image/png" }), "image");
      return json<{ bucket: string; path: string; url: string }>(fetch(`${baseUrl()}/api/v1/agent/attachments`, { method: "POST", headers: bearer(owner.apiKey), body: form }), 201);
    };
    const [lone, shared] = [await upload(), await upload()];
    await appendMessage({ threadId, role: "user", messageId: "pic", runId: null, content: "look", metadata: { user_message_attachments: { bucket: shared.bucket, path: shared.path, mime_type: "image/png" } } });
    await getPool().query(
      `insert into approvals (id, run_id, thread_id, user_id, tool_call_id, action, input, policy, expires_at) values (gen_random_uuid(), $1, $2, $3, 'call_1', 'memory.update', '{}', 'always', now() + interval '1 hour')`,
      [run.id, threadId, owner.id],
    );
    const fork = await json<{ id: string }>(api(owner.apiKey, `/threads/${threadId}/fork`, { method: "POST", body: { title: "keeps the picture" } }), 201);
    expect((await fetch(lone.url)).status).toBe(200);

    expect(await json(api(owner.apiKey, `/threads/${threadId}`, { method: "DELETE" }))).toEqual({ id: threadId, deleted: true });
    const { rows } = await getPool().query(
      `select (select count(*) from threads where id = $1)::int as threads, (select count(*) from messages where thread_id = $1)::int as messages,
              (select count(*) from runs where thread_id = $1)::int as runs, (select count(*) from run_event_batches where run_id = $2)::int as events,
              (select count(*) from approvals where thread_id = $1)::int as approvals, (select count(*) from attachments where thread_id = $1)::int as attachments`,
      [threadId, run.id],
    );
    expect(rows[0]).toEqual({ threads: 0, messages: 0, runs: 0, events: 0, approvals: 0, attachments: 0 });
    expect((await fetch(lone.url)).status).toBe(404);
    expect((await fetch(shared.url)).status).toBe(200);
    await json(api(owner.apiKey, `/threads/${threadId}`), 404);

    await json(api(owner.apiKey, `/threads/${fork.id}`, { method: "DELETE" }));
    expect((await fetch(shared.url)).status).toBe(404);
  });

  it("cancels a run still going in the thread, then deletes it", async () => {
    // A slow answer the server itself executes: the delete's cancel reaches it at once.
    const input = runInput({}, paced(200, Array.from({ length: 200 }, (_, i) => `slow${i}`).join(" ")));
    const accepted = await postRun(owner.apiKey, input);
    expect(accepted.status).toBe(202);
    const { taskId } = (await accepted.json()) as { taskId: string };
    await waitFor(async () => (await json<{ running: boolean }>(api(owner.apiKey, `/threads/${input.threadId}`))).running);
    expect(await json(api(owner.apiKey, `/threads/${input.threadId}`, { method: "DELETE" }))).toEqual({ id: input.threadId, deleted: true });
    const { rowCount } = await getPool().query(`select 1 from runs where id = $1`, [taskId]);
    expect(rowCount).toBe(0);
    await json(api(owner.apiKey, `/threads/${input.threadId}`), 404);
  });
});
