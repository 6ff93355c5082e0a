import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { AgUiEventSchema } from "@/server/protocols/ag-ui/events";
import { runQueuedRunsOnce, START_RUN_TASK } from "@/server/queue/worker";
import { unlockStalledStartJobs } from "@/server/runs/repository/run-queue";
import { BUILTIN_MANIFEST } from "@/server/runner-host/builtin";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { signInOverHttp } from "@/test/http-session";
import { getJson, paced, runInput, waitForRunEnd } from "@/test/runs";
import { collectSse, type SseFrame } from "@/test/sse";
import { waitFor } from "@/test/wait";

// The enqueue policy for busy threads (issue #25), over real HTTP against the production server
// and a second instance on the same PostgreSQL: graphile-worker takes the runs that wait.

let alice: Awaited<ReturnType<typeof createTestUser>>;
beforeAll(async () => {
  alice = await createTestUser();
});

const enqueue = { multitaskStrategy: "enqueue" };
// A first run long enough for the requests that queue behind it to arrive while it streams.
const LONG = paced(150, Array.from({ length: 24 }, (_, i) => `w${i}`).join(" "));

function post(body: unknown, opts: { stream?: boolean; base?: string; key?: string } = {}): Promise<Response> {
  return fetch(`${opts.base ?? baseUrl()}/api/v1/agent/runs`, {
    method: "POST",
    headers: { ...bearer(opts.key ?? alice.apiKey), "content-type": "application/json", ...(opts.stream ? { accept: "text/event-stream" } : {}) },
    body: JSON.stringify(body),
  });
}

async function status(runId: string, key = alice.apiKey) {
  return (await (await getJson(key, `/api/v1/agent/runs/${runId}`)).json()) as { status: string; queuePosition?: number };
}

async function runRows(runIds: string[]) {
  const { rows } = await getPool().query<{ id: string; run_id: string; status: string; started_at: Date | null; finished_at: Date | null }>(
    `select id, run_id, status, started_at, finished_at from runs where run_id = any($1)`,
    [runIds],
  );
  return new Map(rows.map((r) => [r.run_id, r]));
}

async function jobsFor(ids: string[]): Promise<number> {
  const { rows } = await getPool().query<{ n: number }>(`select count(*)::int as n from graphile_worker.jobs where key = any($1)`, [ids]);
  return rows[0]!.n;
}

async function history(threadId: string, key = alice.apiKey) {
  const body = (await (await getJson(key, `/api/v1/agent/history?threadId=${threadId}`)).json()) as { messages: { role: string; content: string }[] };
  return body.messages.map((m) => `${m.role}: ${m.content}`);
}

const types = (frames: SseFrame[]) => frames.map((f) => (JSON.parse(f.data) as { type: string }).type);

describe("multitaskStrategy enqueue", () => {
  it("queues runs on a busy thread (202, queued, their place in line) and starts them one at a time, in order, after the run in progress", async () => {
    const first = runInput({}, LONG);
    const { threadId } = first;
    expect((await post(first)).status).toBe(202);
    await waitFor(async () => (await status(first.runId)).status === "running");

    const second = runInput({ threadId, forwardedProps: enqueue }, "second question");
    const accepted = await post(second);
    expect(accepted.status).toBe(202);
    expect(await accepted.json()).toEqual({ taskId: expect.any(String), threadId, runId: second.runId, created: expect.any(String), traceId: expect.stringMatching(/^[0-9a-f]{32}$/), status: "queued", queuePosition: 1 });

    // A streaming request for a queued run: the stream opens now, its first event is RUN_STARTED when the run really starts.
    const third = runInput({ threadId, forwardedProps: enqueue }, "third question");
    const streamed = await post(third, { stream: true });
    expect(streamed.status).toBe(200);
    const thirdFrames = collectSse(streamed);
    expect(await status(third.runId)).toMatchObject({ status: "queued", queuePosition: 2 });
    expect(await status(second.runId)).toMatchObject({ status: "queued", queuePosition: 1 });

    // Their user messages are not in the thread yet: they join it when their runs start.
    expect((await history(threadId)).filter((m) => m.startsWith("user:"))).toEqual([`user: ${LONG}`]);

    const frames = await thirdFrames;
    for (const f of frames) expect(AgUiEventSchema.safeParse(JSON.parse(f.data)).success).toBe(true);
    expect(types(frames)[0]).toBe("RUN_STARTED");
    expect(JSON.parse(frames.at(-1)!.data)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
    expect(frames.map((f) => f.id)).toEqual(frames.map((_, i) => String(i + 1)));

    for (const run of [first, second, third]) expect(await waitForRunEnd(alice.apiKey, run.runId)).toMatchObject({ status: "completed" });
    const rows = await runRows([first.runId, second.runId, third.runId]);
    const [a, b, c] = [rows.get(first.runId)!, rows.get(second.runId)!, rows.get(third.runId)!];
    expect(a.finished_at!.getTime()).toBeLessThanOrEqual(b.started_at!.getTime());
    expect(b.finished_at!.getTime()).toBeLessThanOrEqual(c.started_at!.getTime());
    expect(await status(third.runId)).not.toHaveProperty("queuePosition");

    // Each question lands after the answer before it, with its own answer after it.
    expect(await history(threadId)).toEqual([
      `user: ${LONG}`,
      `assistant: You said: ${LONG.replace("[[delay:150]] ", "")}`,
      "user: second question",
      "assistant: You said: second question",
      "user: third question",
      "assistant: You said: third question",
    ]);
    expect(await jobsFor([b.id, c.id])).toBe(0);

    // Each run's one execution is on record, written by the statement that made it running (its
    // accept, or its start when its turn came): started with the run, by an instance, finished.
    const { rows: attempts } = await getPool().query<{ run_id: string; attempt: number; instance: string; started_at: Date; end_reason: string | null }>(
      `select run_id, attempt, instance, started_at, end_reason from run_attempts where run_id = any($1) order by started_at`,
      [[a.id, b.id, c.id]],
    );
    expect(attempts.map((r) => [r.run_id, r.attempt, r.end_reason])).toEqual([a, b, c].map((r) => [r.id, 1, "finished"]));
    expect(attempts.map((r) => r.started_at)).toEqual([a, b, c].map((r) => r.started_at));
    for (const r of attempts) expect(r.instance).toMatch(/^.+:\d+:[0-9a-f]{6}$/);
  });

  it("works for the Agent API too: multitask_strategy enqueue on a busy session answers once its turn came and its run completed", async () => {
    const first = runInput({}, "[[delay:100]] one two three four five six seven eight nine ten");
    expect((await post(first)).status).toBe(202);
    await waitFor(async () => (await status(first.runId)).status === "running");
    const res = await fetch(`${baseUrl()}/api/v1/agent/process`, {
      method: "POST",
      headers: { ...bearer(alice.apiKey), "content-type": "application/json" },
      body: JSON.stringify({ input: [{ role: "user", content: [{ type: "text", text: "after you" }] }], session_id: first.threadId, multitask_strategy: "enqueue", stream: false }),
    });
    expect(res.status).toBe(200);
    const response = (await res.json()) as { id: string; status: string };
    expect(response.status).toBe("completed");
    const rows = await runRows([first.runId, response.id]);
    expect(rows.get(first.runId)!.finished_at!.getTime()).toBeLessThanOrEqual(rows.get(response.id)!.started_at!.getTime());
    expect((await history(first.threadId)).slice(-2)).toEqual(["user: after you", "assistant: You said: after you"]);
  });

  it("cancels a queued run before it starts: it never starts, ends cancelled, its job is gone and its follower gets the terminal event", async () => {
    const first = runInput({}, "[[hang]] hold the thread");
    const { threadId } = first;
    expect((await post(first)).status).toBe(202);
    await waitFor(async () => (await status(first.runId)).status === "running");

    const bad = await post(runInput({ threadId, forwardedProps: { multitaskStrategy: "later" } }));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toBe('forwardedProps.multitaskStrategy: must be one of reject, enqueue, interrupt, not "later"');

    const waiting = runInput({ threadId, forwardedProps: enqueue }, "never asked");
    expect((await post(waiting)).status).toBe(202);
    const id = (await runRows([waiting.runId])).get(waiting.runId)!.id;
    expect(await jobsFor([id])).toBe(1);
    const follower = collectSse(await getJson(alice.apiKey, `/api/v1/agent/runs/${waiting.runId}/events`));

    const cancelled = await fetch(`${baseUrl()}/api/v1/agent/runs/${waiting.runId}/cancel`, { method: "POST", headers: bearer(alice.apiKey) });
    expect(cancelled.status).toBe(202);
    expect(await cancelled.json()).toMatchObject({ status: "cancelled", startedAt: null });
    const frames = await follower;
    expect(types(frames)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
    expect(JSON.parse(frames[1]!.data)).toMatchObject({ outcome: { type: "cancelled" } });
    expect(await jobsFor([id])).toBe(0);

    // The thread's run ends; nothing waits behind it any more, and the cancelled question never joined the thread.
    await fetch(`${baseUrl()}/api/v1/agent/runs/${first.runId}/cancel`, { method: "POST", headers: bearer(alice.apiKey) });
    expect(await waitForRunEnd(alice.apiKey, first.runId)).toMatchObject({ status: "cancelled" });
    const after = runInput({ threadId }, "free again");
    expect((await post(after)).status).toBe(202);
    expect(await waitForRunEnd(alice.apiKey, after.runId)).toMatchObject({ status: "completed" });
    expect((await runRows([waiting.runId])).get(waiting.runId)).toMatchObject({ status: "cancelled", started_at: null });
    expect((await history(threadId)).filter((m) => m.startsWith("user:"))).toEqual(["user: [[hang]] hold the thread", "user: free again"]);
  });

  it("deleting a thread cancels its queued runs with it", async () => {
    const first = runInput({}, "[[hang]] busy");
    expect((await post(first)).status).toBe(202);
    await waitFor(async () => (await status(first.runId)).status === "running");
    const waiting = runInput({ threadId: first.threadId, forwardedProps: enqueue }, "behind it");
    expect((await post(waiting)).status).toBe(202);
    const id = (await runRows([waiting.runId])).get(waiting.runId)!.id;
    const cookie = (await signInOverHttp(alice.email, alice.password))!;
    const removed = await fetch(`${baseUrl()}/api/trpc/threads.delete`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ json: { id: first.threadId } }),
    });
    expect(removed.status).toBe(200);
    expect((await runRows([first.runId, waiting.runId])).size).toBe(0);
    expect(await jobsFor([id])).toBe(0);
  });
});

describe("interrupt and the queue", () => {
  it("interrupt cancels the runs waiting their turn too, then the run in progress, and starts at once", async () => {
    const first = runInput({}, "[[hang]] in progress");
    const { threadId } = first;
    expect((await post(first)).status).toBe(202);
    await waitFor(async () => (await status(first.runId)).status === "running");
    const waiting = runInput({ threadId, forwardedProps: enqueue }, "waiting");
    expect((await post(waiting)).status).toBe(202);
    const now = runInput({ threadId, forwardedProps: { multitaskStrategy: "interrupt" } }, "do this instead");
    expect((await post(now)).status).toBe(202);
    expect(await waitForRunEnd(alice.apiKey, now.runId)).toMatchObject({ status: "completed" });
    expect(await status(waiting.runId)).toMatchObject({ status: "cancelled" });
    expect(await status(first.runId)).toMatchObject({ status: "cancelled" });
    expect((await history(threadId)).filter((m) => m.startsWith("user:"))).toEqual(["user: [[hang]] in progress", "user: do this instead"]);
  });

  it("a start job whose worker died is unlocked for another worker", async () => {
    const key = randomUUID();
    await getPool().query(`select graphile_worker.add_job('dispatch_start_run', json_build_object('id', $1::text), run_at := 'infinity', job_key := $1)`, [key]);
    // As a worker killed between taking the job and finishing it leaves it.
    await getPool().query(`update graphile_worker._private_jobs set locked_at = now() - interval '1 minute', locked_by = 'a-dead-worker' where key = $1`, [key]);
    expect(await unlockStalledStartJobs({ task: START_RUN_TASK, olderThanMs: 15_000 })).toBeGreaterThanOrEqual(1);
    const { rows } = await getPool().query(`select locked_by from graphile_worker.jobs where key = $1`, [key]);
    expect(rows).toEqual([{ locked_by: null }]);
    await getPool().query(`select graphile_worker.remove_job($1)`, [key]);
  });

  it("runs due start jobs once without a long-lived worker (Vercel's cron duty), and ignores a job whose run is gone", async () => {
    const key = randomUUID();
    await getPool().query(`select graphile_worker.add_job('dispatch_start_run', json_build_object('id', $1::text), job_key := $1)`, [key]);
    // This call or the test server's own worker takes it; either way it starts nothing and is done.
    expect(await runQueuedRunsOnce()).toBe(0);
    await waitFor(async () => (await getPool().query(`select 1 from graphile_worker.jobs where key = $1`, [key])).rowCount === 0);
  });
});

describe("a queued run and instances", () => {
  let other: ExtraServer | null = null;
  afterAll(() => {
    other?.child.kill("SIGKILL");
  });

  it("starts on another instance after the instance that accepted it is killed -9 while it waits", async () => {
    other = await startExtraServer();
    const first = runInput({}, LONG);
    const { threadId } = first;
    expect((await post(first)).status).toBe(202);
    await waitFor(async () => (await status(first.runId)).status === "running");
    const waiting = runInput({ threadId, forwardedProps: enqueue }, "accepted by the instance that dies");
    const accepted = await post(waiting, { base: other.url });
    expect(accepted.status).toBe(202);
    expect(await accepted.json()).toMatchObject({ status: "queued", queuePosition: 1 });
    const dead = new Promise((resolve) => other!.child.once("exit", resolve));
    other.child.kill("SIGKILL");
    await dead;
    other = null;

    expect(await waitForRunEnd(alice.apiKey, waiting.runId)).toMatchObject({ status: "completed" });
    const rows = await runRows([first.runId, waiting.runId]);
    expect(rows.get(first.runId)!.finished_at!.getTime()).toBeLessThanOrEqual(rows.get(waiting.runId)!.started_at!.getTime());
    expect((await history(threadId)).slice(-2)).toEqual(["user: accepted by the instance that dies", "assistant: You said: accepted by the instance that dies"]);
  });
});

describe("a binding's busy-thread default", () => {
  it("applies when the request names no strategy, and an admin sets and clears it over tRPC", async () => {
    const admin = await createTestUser({ role: "admin" });
    const bob = await createTestUser();
    const cookie = (await signInOverHttp(admin.email, admin.password))!;
    const trpc = (path: string, input: unknown) =>
      fetch(`${baseUrl()}/api/trpc/${path}`, { method: "POST", headers: { cookie, "content-type": "application/json" }, body: JSON.stringify({ json: input }) });
    const bound = await trpc("runners.bind", { runnerId: BUILTIN_MANIFEST.id, email: bob.email, multitaskStrategy: "enqueue" });
    expect(bound.status).toBe(200);
    const binding = ((await bound.json()) as { result: { data: { json: { id: string; multitaskStrategy: string } } } }).result.data.json;
    expect(binding.multitaskStrategy).toBe("enqueue");
    const badStrategy = await trpc("runners.updateBinding", { id: binding.id, multitaskStrategy: "later" });
    expect(badStrategy.status).toBe(400);

    const first = runInput({}, "[[hang]] bob's long question");
    expect((await post(first, { key: bob.apiKey })).status).toBe(202);
    await waitFor(async () => (await status(first.runId, bob.apiKey)).status === "running");
    const queued = await post(runInput({ threadId: first.threadId }, "no strategy named"), { key: bob.apiKey });
    expect(queued.status).toBe(202);
    const { runId: queuedRunId } = (await queued.json()) as { runId: string; status: string; queuePosition: number };
    expect(await status(queuedRunId, bob.apiKey)).toMatchObject({ status: "queued", queuePosition: 1 });
    // The console's runs list shows it with its place in line; the metrics count it.
    const list = await fetch(`${baseUrl()}/api/trpc/adminRuns.list?input=${encodeURIComponent(JSON.stringify({ json: { statuses: ["queued"], userEmail: bob.email } }))}`, { headers: { cookie } });
    const items = ((await list.json()) as { result: { data: { json: { items: { runId: string; queuePosition: number | null }[] } } } }).result.data.json.items;
    expect(items.map((r) => [r.runId, r.queuePosition])).toEqual([[queuedRunId, 1]]);
    const metrics = await (await fetch(`${baseUrl()}/api/metrics`, { headers: { cookie } })).text();
    expect(Number(/^dispatch_queue_depth (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
    expect(metrics).toMatch(/^dispatch_runs_enqueued_total \d+$/m);
    // The request's own strategy wins over the binding's.
    expect((await post(runInput({ threadId: first.threadId, forwardedProps: { multitaskStrategy: "reject" } }), { key: bob.apiKey })).status).toBe(409);

    expect((await trpc("runners.updateBinding", { id: binding.id, multitaskStrategy: null })).status).toBe(200);
    expect((await post(runInput({ threadId: first.threadId }), { key: bob.apiKey })).status).toBe(409);
    await trpc("runners.removeBinding", { id: binding.id });
    await fetch(`${baseUrl()}/api/v1/agent/runs/${first.runId}/cancel`, { method: "POST", headers: bearer(bob.apiKey) });
  });
});
