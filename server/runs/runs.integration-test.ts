import { HttpAgent } from "@ag-ui/client";
import { AgUiEventSchema as EventSchema } from "@/server/protocols/ag-ui/events";
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { getJson, paced, postRun, runInput, waitForRunEnd } from "@/test/runs";
import { collectSse, readSse, type SseFrame } from "@/test/sse";

let alice: Awaited<ReturnType<typeof createTestUser>>;
let bob: Awaited<ReturnType<typeof createTestUser>>;
beforeAll(async () => {
  [alice, bob] = await Promise.all([createTestUser(), createTestUser()]);
});

const types = (frames: SseFrame[]) => frames.map((f) => (JSON.parse(f.data) as { type: string }).type);

describe("a run over AG-UI", () => {
  it("works with the official @ag-ui/client HttpAgent, and its messages match /history", async () => {
    const threadId = randomUUID();
    const agent = new HttpAgent({ url: `${baseUrl()}/api/v1/agent/runs`, headers: bearer(alice.apiKey), threadId });
    agent.addMessage({ id: "m-user-1", role: "user", content: "the quick brown fox" });
    const result = await agent.runAgent({ runId: `run-${randomUUID()}` });
    expect(result.newMessages).toHaveLength(1);
    expect(result.newMessages[0]).toMatchObject({ role: "assistant", content: "You said: the quick brown fox" });

    const history = (await (await getJson(alice.apiKey, `/api/v1/agent/history?threadId=${threadId}`)).json()) as {
      scope: string;
      threadId: string;
      hasMore: boolean;
      day: string;
      messages: { id: string; role: string; content: string; seq: number; url?: string | null; uiSchema?: unknown }[];
    };
    expect(history).toMatchObject({ scope: "history_day", threadId, hasMore: false, day: new Date().toISOString().slice(0, 10) });
    expect(history.messages.map((m) => ({ id: m.id, role: m.role, content: m.content }))).toEqual(
      agent.messages.map((m) => ({ id: m.id, role: m.role, content: m.content })),
    );
    expect(history.messages.map((m) => m.seq)).toEqual([1, 2]);
    expect(history.messages[0]).toMatchObject({ url: null });
    expect(history.messages[1]).toMatchObject({ uiSchema: null });
  });

  it("streams valid AG-UI events with sequence ids, and records the run", async () => {
    const body = runInput({ state: { step: 1 } }, "one two three");
    const frames = await collectSse(await postRun(alice.apiKey, body, { stream: true }));
    expect(frames.map((f) => f.id)).toEqual(frames.map((_, i) => String(i + 1)));
    for (const f of frames) expect(EventSchema.safeParse(JSON.parse(f.data)).success).toBe(true);
    expect(types(frames)).toEqual([
      "RUN_STARTED",
      "STATE_SNAPSHOT",
      "TEXT_MESSAGE_START",
      ...Array(5).fill("TEXT_MESSAGE_CONTENT"),
      "TEXT_MESSAGE_END",
      "RUN_FINISHED",
    ]);
    expect(JSON.parse(frames[0]!.data)).toMatchObject({ threadId: body.threadId, runId: body.runId });
    const run = await waitForRunEnd(alice.apiKey, body.runId);
    expect(run).toMatchObject({ status: "completed", threadId: body.threadId, error: null });
    expect(run.usage).toMatchObject({ totalTokens: expect.any(Number) });
  });

  it("answers 202 with TaskAcceptedResponse and runs in the background", async () => {
    const body = runInput();
    const res = await postRun(alice.apiKey, body);
    expect(res.status).toBe(202);
    const task = (await res.json()) as Record<string, string>;
    expect(task).toEqual({ taskId: expect.any(String), threadId: body.threadId, runId: body.runId, created: expect.any(String), traceId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(new Date(task.created!).toISOString()).toBe(task.created);
    const frames = await collectSse(await getJson(alice.apiKey, `/api/v1/agent/runs/${body.runId}/events`));
    expect(types(frames).at(-1)).toBe("RUN_FINISHED");
  });
});

describe("resume", () => {
  it("rejoins with Last-Event-ID: the two parts equal an uninterrupted stream", async () => {
    const body = runInput({}, paced(5, Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ")));
    const first = await postRun(alice.apiKey, body, { stream: true });
    const part1: SseFrame[] = [];
    for await (const f of readSse(first)) {
      part1.push(f);
      if (part1.length === 7) break; // disconnect mid-run
    }
    const rejoin = await fetch(`${baseUrl()}/api/v1/agent/runs/${body.runId}/events`, {
      headers: { ...bearer(alice.apiKey), "last-event-id": part1.at(-1)!.id! },
    });
    const part2 = await collectSse(rejoin);
    const full = await collectSse(await getJson(alice.apiKey, `/api/v1/agent/runs/${body.runId}/events`));
    expect([...part1, ...part2]).toEqual(full);
    expect(types(full).at(-1)).toBe("RUN_FINISHED");
    const after = await collectSse(await getJson(alice.apiKey, `/api/v1/agent/runs/${body.runId}/events?after=${full.length - 2}`));
    expect(after).toEqual(full.slice(-2));
  });

  it("rejects a malformed Last-Event-ID with 400", async () => {
    const body = runInput();
    await postRun(alice.apiKey, body);
    const res = await fetch(`${baseUrl()}/api/v1/agent/runs/${body.runId}/events`, { headers: { ...bearer(alice.apiKey), "last-event-id": "abc" } });
    expect(res.status).toBe(400);
  });
});

describe("cancel, busy threads and repeated runIds", () => {
  it("cancels a run mid-stream: RUN_FINISHED with outcome cancelled, status cancelled, idempotent", async () => {
    const body = runInput({}, paced(200, "a b c d e f g h i j k l m n o p"));
    const stream = readSse(await postRun(alice.apiKey, body, { stream: true }));
    const seen: SseFrame[] = [];
    for await (const f of stream) {
      seen.push(f);
      if (types(seen).includes("TEXT_MESSAGE_CONTENT")) break;
    }
    const cancel = await fetch(`${baseUrl()}/api/v1/agent/runs/${body.runId}/cancel`, { method: "POST", headers: bearer(alice.apiKey) });
    expect(cancel.status).toBe(202);
    const frames = await collectSse(await getJson(alice.apiKey, `/api/v1/agent/runs/${body.runId}/events`));
    const last = JSON.parse(frames.at(-1)!.data) as { type: string; outcome?: { type: string } };
    expect(last).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "cancelled" } });
    expect(types(frames)).toContain("TEXT_MESSAGE_END");
    expect(types(frames).filter((t) => t === "TEXT_MESSAGE_CONTENT").length).toBeLessThan(16);
    expect((await waitForRunEnd(alice.apiKey, body.runId)).status).toBe("cancelled");
    const again = await fetch(`${baseUrl()}/api/v1/agent/runs/${body.runId}/cancel`, { method: "POST", headers: bearer(alice.apiKey) });
    expect(again.status).toBe(202);
    expect(((await again.json()) as { status: string }).status).toBe("cancelled");
  });

  it("answers 409 for a second run on a busy thread", async () => {
    const first = runInput({}, paced(100, "a b c d e f g h"));
    expect((await postRun(alice.apiKey, first)).status).toBe(202);
    const second = runInput({ threadId: first.threadId });
    const res = await postRun(alice.apiKey, second);
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(first.runId);
    await fetch(`${baseUrl()}/api/v1/agent/runs/${first.runId}/cancel`, { method: "POST", headers: bearer(alice.apiKey) });
    await waitForRunEnd(alice.apiKey, first.runId);
    expect((await postRun(alice.apiKey, second)).status).toBe(202);
  });

  it("with multitaskStrategy interrupt, cancels the thread's run in progress and starts the new one after it", async () => {
    const first = runInput({}, paced(100, "a b c d e f g h i j k l m n o p q r s t"));
    expect((await postRun(alice.apiKey, first)).status).toBe(202);
    const bad = await postRun(alice.apiKey, runInput({ threadId: first.threadId, forwardedProps: { multitaskStrategy: "queue" } }));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toBe('forwardedProps.multitaskStrategy: must be one of reject, enqueue, interrupt, not "queue"');
    const refused = await postRun(alice.apiKey, runInput({ threadId: first.threadId, forwardedProps: { multitaskStrategy: "reject" } }));
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('"interrupt"');

    const second = runInput({ threadId: first.threadId, forwardedProps: { multitaskStrategy: "interrupt" } }, "and now this");
    const res = await postRun(alice.apiKey, second, { stream: true });
    expect(res.status).toBe(200);
    const frames = await collectSse(res);
    expect(JSON.parse(frames.at(-1)!.data)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
    // The run it interrupted ended first, cancelled, with its log closed.
    expect(await waitForRunEnd(alice.apiKey, first.runId)).toMatchObject({ status: "cancelled" });
    const firstLog = await collectSse(await getJson(alice.apiKey, `/api/v1/agent/runs/${first.runId}/events`));
    expect(JSON.parse(firstLog.at(-1)!.data)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "cancelled" } });
    const runs = await getPool().query<{ run_id: string; finished_at: Date; started_at: Date }>(
      "select run_id, finished_at, started_at from runs where run_id = any($1) order by created_at",
      [[first.runId, second.runId]],
    );
    expect(runs.rows[0]!.finished_at.getTime()).toBeLessThanOrEqual(runs.rows[1]!.started_at.getTime());
  });

  it("returns the same task for a repeated runId and never starts a second run", async () => {
    const body = runInput();
    const [a, b] = await Promise.all([postRun(alice.apiKey, body), postRun(alice.apiKey, body)]);
    const [ta, tb] = (await Promise.all([a.json(), b.json()])) as { taskId: string }[];
    expect(ta!.taskId).toBe(tb!.taskId);
    const { rows } = await getPool().query("select count(*)::int as n from runs where run_id = $1", [body.runId]);
    expect(rows[0].n).toBe(1);
    await waitForRunEnd(alice.apiKey, body.runId);
    const later = await postRun(alice.apiKey, body);
    expect(((await later.json()) as { taskId: string }).taskId).toBe(ta!.taskId);
  });
});

describe("ownership", () => {
  it("never lets another user see or use a thread or run", async () => {
    const body = runInput();
    await postRun(alice.apiKey, body);
    await waitForRunEnd(alice.apiKey, body.runId);

    const intrude = await postRun(bob.apiKey, runInput({ threadId: body.threadId }));
    expect(intrude.status).toBe(404);
    expect((await getJson(bob.apiKey, `/api/v1/agent/runs/${body.runId}`)).status).toBe(404);
    expect((await getJson(bob.apiKey, `/api/v1/agent/runs/${body.runId}/events`)).status).toBe(404);
    expect((await fetch(`${baseUrl()}/api/v1/agent/runs/${body.runId}/cancel`, { method: "POST", headers: bearer(bob.apiKey) })).status).toBe(404);
    expect((await getJson(bob.apiKey, `/api/v1/agent/history?threadId=${body.threadId}`)).status).toBe(404);
    // The same runId is Bob's own, separate run.
    expect((await postRun(bob.apiKey, runInput({ runId: body.runId }))).status).toBe(202);
  });
});

describe("GET /api/v1/agent/history", () => {
  it("serves one UTC day at a time, with hasMore for older days", async () => {
    const body = runInput();
    await postRun(alice.apiKey, body);
    await waitForRunEnd(alice.apiKey, body.runId);
    // Move the first exchange two days back, as if it happened then.
    await getPool().query(`update messages set created_at = created_at - interval '2 days' where thread_id = $1`, [body.threadId]);
    const next = runInput({ threadId: body.threadId }, "today");
    await postRun(alice.apiKey, next);
    await waitForRunEnd(alice.apiKey, next.runId);

    const today = (await (await getJson(alice.apiKey, `/api/v1/agent/history?threadId=${body.threadId}`)).json()) as {
      day: string;
      hasMore: boolean;
      messages: { seq: number; content: string }[];
    };
    expect(today.hasMore).toBe(true);
    expect(today.messages.map((m) => m.seq)).toEqual([3, 4]);
    const older = (await (await getJson(alice.apiKey, `/api/v1/agent/history?threadId=${body.threadId}&before=${today.day}`)).json()) as typeof today;
    expect(older.hasMore).toBe(false);
    expect(older.messages.map((m) => m.seq)).toEqual([1, 2]);
    expect(older.day < today.day).toBe(true);
  });

  it("defaults to the caller's latest thread and answers bad input clearly", async () => {
    const body = runInput();
    await postRun(alice.apiKey, body);
    await waitForRunEnd(alice.apiKey, body.runId);
    const latest = (await (await getJson(alice.apiKey, "/api/v1/agent/history")).json()) as { threadId: string };
    expect(latest.threadId).toBe(body.threadId);
    const fresh = await createTestUser();
    expect(await (await getJson(fresh.apiKey, "/api/v1/agent/history")).json()).toEqual({
      scope: "history_day",
      threadId: null,
      day: null,
      hasMore: false,
      messages: [],
    });
    const badDate = await getJson(alice.apiKey, "/api/v1/agent/history?before=2026-02-30");
    expect(badDate.status).toBe(400);
    expect(((await badDate.json()) as { error: { message: string } }).error.message).toBe("before must be a date in the form YYYY-MM-DD");
    expect((await getJson(alice.apiKey, `/api/v1/agent/history?threadId=${randomUUID()}`)).status).toBe(404);
    // Any other string is the caller's name for a thread (docs/ag-ui.md, ids): one they never used is not found.
    expect((await getJson(alice.apiKey, "/api/v1/agent/history?threadId=nope")).status).toBe(404);
    expect((await getJson(alice.apiKey, "/api/v1/agent/history?threadId=no%00pe")).status).toBe(400);
  });
});
