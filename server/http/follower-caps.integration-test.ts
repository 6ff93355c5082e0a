import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { runInput } from "@/test/runs";
import { waitFor } from "@/test/wait";

// Streams following runs are capped per run and per user on each server (RUN_FOLLOWERS_PER_RUN,
// RUN_FOLLOWERS_PER_USER), here set low on a server of the test's own: past a cap every door
// that streams a run answers 429 before any stream (or run) starts, and a stream's place comes
// back when it ends, however it ends.
let server: ExtraServer | undefined;
let user: Awaited<ReturnType<typeof createTestUser>>;
const hangups: AbortController[] = [];

beforeAll(async () => {
  baseUrl(); // needs a production build
  user = await createTestUser();
  server = await startExtraServer({ RUN_FOLLOWERS_PER_RUN: "2", RUN_FOLLOWERS_PER_USER: "3" });
}, 90_000);

afterAll(() => {
  for (const c of hangups) c.abort();
  server?.child.kill("SIGKILL");
});

function send(path: string, init: RequestInit & { key?: string; stream?: boolean } = {}): Promise<Response> {
  const hangup = new AbortController();
  hangups.push(hangup);
  const { key = user.apiKey, stream = true, ...rest } = init;
  return fetch(`${server!.url}${path}`, {
    ...rest,
    signal: hangup.signal,
    headers: { ...bearer(key), "content-type": "application/json", ...(stream ? { accept: "text/event-stream" } : {}), ...(rest.headers as Record<string, string>) },
  });
}

const follow = (runId: string) => send(`/api/v1/agent/runs/${encodeURIComponent(runId)}/events`);
const startRun = (body: unknown, opts: { stream?: boolean; key?: string } = {}) => send("/api/v1/agent/runs", { method: "POST", body: JSON.stringify(body), ...opts });
const cancel = (runId: string, key = user.apiKey) => send(`/api/v1/agent/runs/${encodeURIComponent(runId)}/cancel`, { method: "POST", key, stream: false });
const hanging = () => runInput({}, `[[hang]] caps-${randomUUID().slice(0, 8)}`);

async function expectRefused(res: Promise<Response>, limit: "RUN_FOLLOWERS_PER_RUN" | "RUN_FOLLOWERS_PER_USER", max: number): Promise<void> {
  const answer = await res;
  expect(answer.status).toBe(429);
  const body = (await answer.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe("RATE_LIMITED");
  expect(body.error.message).toContain(limit);
  expect(body.error.message).toContain(String(max));
}

/** Opens a stream once a place is free (a refused attempt holds none). */
async function followWhenFree(open: () => Promise<Response>): Promise<Response> {
  let res: Response | undefined;
  await waitFor(async () => {
    res = await open();
    if (res.status === 429) await res.body?.cancel();
    return res.status === 200;
  }, 10_000);
  return res!;
}

describe("follower caps", () => {
  it("refuses a stream past the run's or the user's cap with 429 on every door, and gives places back when streams end", async () => {
    const a = hanging();
    expect((await startRun(a, { stream: false })).status).toBe(202);
    const firstCall = follow(a.runId);
    const firstHangup = hangups.at(-1)!;
    expect((await firstCall).status).toBe(200);
    expect((await follow(a.runId)).status).toBe(200);
    // The run has its two: a third follower, or joining it by repeating its start as a stream, is refused.
    await expectRefused(follow(a.runId), "RUN_FOLLOWERS_PER_RUN", 2);
    await expectRefused(startRun(a), "RUN_FOLLOWERS_PER_RUN", 2);

    // The user's third stream is their last one.
    const b = hanging();
    expect((await startRun(b)).status).toBe(200);
    await expectRefused(follow(b.runId), "RUN_FOLLOWERS_PER_USER", 3);
    // Refused before the run starts, on each door that starts one.
    const c = hanging();
    await expectRefused(startRun(c), "RUN_FOLLOWERS_PER_USER", 3);
    expect((await send(`/api/v1/agent/runs/${c.runId}`, { stream: false })).status).toBe(404);
    await expectRefused(send("/api/v1/ag-ui", { method: "POST", body: JSON.stringify(hanging()) }), "RUN_FOLLOWERS_PER_USER", 3);
    await expectRefused(
      send("/api/v1/agent/process", { method: "POST", body: JSON.stringify({ input: [{ role: "user", type: "message", content: [{ type: "text", text: "[[hang]] caps" }] }] }) }),
      "RUN_FOLLOWERS_PER_USER",
      3,
    );

    // Another user has places of their own.
    const other = await createTestUser();
    const d = hanging();
    expect((await startRun(d, { key: other.apiKey })).status).toBe(200);
    expect((await cancel(d.runId, other.apiKey)).status).toBe(202);

    // A follower that hangs up gives its places back.
    firstHangup.abort();
    const again = await followWhenFree(() => follow(a.runId));
    expect(again.status).toBe(200);

    // Streams that end with their run give theirs back too: the user has all three places again.
    expect((await cancel(a.runId)).status).toBe(202);
    expect((await cancel(b.runId)).status).toBe(202);
    const e = hanging();
    const f = hanging();
    const reopened = [await followWhenFree(() => startRun(e)), await followWhenFree(() => follow(e.runId)), await followWhenFree(() => startRun(f))];
    expect(reopened.map((r) => r.status)).toEqual([200, 200, 200]);
    await expectRefused(follow(f.runId), "RUN_FOLLOWERS_PER_USER", 3);
    await cancel(e.runId);
    await cancel(f.runId);
  }, 90_000);
});
