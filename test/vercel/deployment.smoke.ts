import { verifyEvents } from "@ag-ui/client";
import type { BaseEvent } from "@ag-ui/core";
import { spawnSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { from, lastValueFrom, toArray } from "rxjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDatabase, startEmbeddedPostgres, type RunningDatabase } from "@/scripts/lib/embedded-postgres";
import { migrate } from "@/scripts/lib/migrator";
import { startFakeLlm, type FakeLlm } from "@/test/fake-llm";
import { pngBytes } from "@/test/images";
import { startS3Server, type TestS3Server } from "@/test/s3-server";
import { readSse, type SseFrame } from "@/test/sse";
import { waitFor } from "@/test/wait";
import { startPlatform, type Platform } from "./platform";

// The app as Vercel builds it (`vercel build`, offline, with the pinned CLI) and runs it: its
// functions behind a stand-in for the platform (platform.ts: read-only code, waitUntil, a time limit
// per invocation), on a fresh database that only the build migrated, with S3 storage. Nothing was
// set up by hand: the first admin comes from the environment, as on a real first deployment.
// VERCEL_SMOKE_OUTPUT=<dir>/.vercel/output reuses a build (its database is migrated here instead).

const TIME_LIMIT_MS = 30_000;
// The second stand-in tells each invocation its deadline: a run is handed back 30 s before it (and
// goes on in a new invocation), a stream ends 10 s before it. So an invocation executes a run for
// 15 s there, and a run's own deadline (RUN_DEADLINE_SECONDS, from its acceptance) spans several.
const INFORMED_LIMIT_MS = 45_000;
const INFORMED_RUN_DEADLINE_S = 60;
// recovery.ts: a run is taken for abandoned after three missed heartbeats.
const STALE_AFTER_S = 15;
const CRON_SECRET = randomBytes(16).toString("hex");
const ADMIN = { email: "owner@vercel.test", password: "first deployment password" };

let scratch = "";
let db: RunningDatabase;
let databaseUrl = "";
let s3: TestS3Server;
let llm: FakeLlm;
let platform: Platform;
let informed: Platform;
let cookie = "";

beforeAll(async () => {
  scratch = mkdtempSync(path.join(os.tmpdir(), "dispatch-vercel-"));
  db = await startEmbeddedPostgres({ dataDir: scratch, database: "postgres", persistent: false });
  await ensureDatabase(db.url, "dispatch_vercel");
  const url = new URL(db.url);
  url.pathname = "/dispatch_vercel";
  databaseUrl = url.toString();
  [s3, llm] = await Promise.all([startS3Server(), startFakeLlm()]);

  let output = process.env.VERCEL_SMOKE_OUTPUT;
  if (output) await migrate({ connectionString: databaseUrl });
  else {
    const app = path.join(scratch, "app");
    const build = spawnSync(process.execPath, [path.join(import.meta.dirname, "build.mjs"), app], { stdio: "inherit", env: { ...process.env, DATABASE_URL: databaseUrl } });
    expect(build.status, "vercel build").toBe(0);
    output = path.join(app, ".vercel/output");
  }
  const env = {
    DATABASE_URL: databaseUrl,
      AUTH_SECRET: randomBytes(32).toString("base64url"),
      CRON_SECRET,
      DISPATCH_ADMIN_EMAIL: ADMIN.email,
      DISPATCH_ADMIN_PASSWORD: ADMIN.password,
      LLM_BASE_URL: llm.baseUrl,
      LLM_API_KEY: llm.apiKey,
      LLM_MODEL: llm.model,
      LOG_LEVEL: process.env.TEST_SERVER_LOG_LEVEL ?? "error",
      // A document near the 5 MB limit is a few thousand chunks, written in one statement that can
      // outlast the default 10 s on a busy machine (the same through the direct upload).
      DATABASE_STATEMENT_TIMEOUT_MS: "60000",
    ...s3.env,
  };
  // A run handed back is continued by a call to the deployment's own URL: https://$VERCEL_URL on
  // Vercel, this stand-in's plain-HTTP address here.
  platform = await startPlatform({ output, timeLimitMs: TIME_LIMIT_MS, env: (self) => ({ ...env, CONTINUE_RUNS_URL: self }) });
  informed = await startPlatform({
    output,
    timeLimitMs: INFORMED_LIMIT_MS,
    tellsDeadline: true,
    env: (self) => ({ ...env, CONTINUE_RUNS_URL: self, RUN_DEADLINE_SECONDS: String(INFORMED_RUN_DEADLINE_S) }),
  });
}, 15 * 60_000);

afterAll(async () => {
  await platform?.close();
  await informed?.close();
  await Promise.all([s3?.stop(), llm?.close()]);
  await db?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const headers = (extra: Record<string, string> = {}) => ({ cookie, origin: platform.url, ...extra });
type Event = { type: string; [key: string]: unknown };
const events = (frames: SseFrame[]) => frames.map((f) => JSON.parse(f.data) as Event);

function runBody(text: string, extra: Record<string, unknown> = {}) {
  return { threadId: randomUUID(), runId: `run-${randomUUID()}`, messages: [{ id: `m-${randomUUID().slice(0, 8)}`, role: "user", content: text }], ...extra };
}

function startRun(body: unknown, stream: boolean): Promise<Response> {
  return fetch(`${platform.url}/api/v1/agent/runs`, {
    method: "POST",
    headers: headers({ "content-type": "application/json", ...(stream ? { accept: "text/event-stream" } : {}) }),
    body: JSON.stringify(body),
  });
}

async function runStatus(runId: string): Promise<string> {
  const res = await fetch(`${platform.url}/api/v1/agent/runs/${runId}`, { headers: headers() });
  return ((await res.json()) as { status: string }).status;
}

describe("a Vercel deployment", () => {
  it("creates the first admin from the environment on first boot, who signs in", async () => {
    const signedIn = await signIn(ADMIN.email, ADMIN.password);
    expect(signedIn).not.toBeNull();
    cookie = signedIn!;
    const me = await fetch(`${platform.url}/api/v1/me`, { headers: headers() });
    expect(await me.json()).toMatchObject({ email: ADMIN.email, role: "admin", via: "session" });
  });

  it("streams a run with a tool call, run by the shipped project_cli from the read-only code folder", async () => {
    const res = await startRun(runBody('[[tool:contacts.read {"query":"Ana"}]] who is Ana?'), true);
    expect(res.status).toBe(200);
    const list: Event[] = [];
    for await (const frame of readSse(res)) list.push(JSON.parse(frame.data) as Event);
    const result = list.find((e) => e.type === "TOOL_CALL_RESULT");
    expect(result, JSON.stringify(list.map((e) => e.type))).toBeDefined();
    // The first admin's demo contacts, read through the tool gateway by the CLI child process.
    expect(String(result!.content)).toContain("ana.souza@example.com");
    expect(list.at(-1)).toMatchObject({ type: "RUN_FINISHED" });
  });

  it("runs a background (202) run to its end after the answer, through waitUntil", async () => {
    const body = runBody("[[delay:20]] one two three four five");
    const res = await startRun(body, false);
    expect(res.status).toBe(202);
    const replay = events(await collect(await fetch(`${platform.url}/api/v1/agent/runs/${body.runId}/events`, { headers: headers() })));
    expect(replay.at(-1)).toMatchObject({ type: "RUN_FINISHED" });
    expect(await runStatus(body.runId)).toBe("completed");
  });

  it("fires a due schedule through the cron route, once, and runs it to its end", async () => {
    const made = await fetch(`${platform.url}/api/v1/schedules`, {
      method: "POST",
      headers: headers({ "content-type": "application/json" }),
      body: JSON.stringify({ message: "[[delay:20]] scheduled hello", runAt: new Date(Date.now() - 1_000).toISOString() }),
    });
    expect(made.status).toBe(201);
    const { id } = (await made.json()) as { id: string };
    expect((await fetch(`${platform.url}/api/cron/fire-schedules`)).status).toBe(401);
    // No worker lives between requests here: the cron route is what fires it.
    const fire = () => fetch(`${platform.url}/api/cron/fire-schedules`, { headers: { authorization: `Bearer ${CRON_SECRET}` } }).then((r) => r.json());
    expect(await fire()).toMatchObject({ duty: "fire-schedules", startedScheduledRuns: 1 });
    const schedule = (await (await fetch(`${platform.url}/api/v1/schedules/${id}`, { headers: headers() })).json()) as { runCount: number; nextRunAt: string | null; lastRunId: string };
    expect(schedule).toMatchObject({ runCount: 1, nextRunAt: null });
    await waitFor(async () => (await runStatus(schedule.lastRunId)) === "completed", 30_000);
    expect(await fire()).toMatchObject({ startedScheduledRuns: 0 });
  });

  it("a run cut by the time limit: the client rejoins with Last-Event-ID and the cron-called sweeper continues it", { timeout: 3 * 60_000 }, async () => {
    const cutBefore = platform.cut();
    // Six paced lookups and an answer: longer than the stand-in's 30 s limit, which this
    // deployment's functions are not told of (they assume the routes' maxDuration).
    const body = runBody(`[[delay:1200]] ${lookups(6)} six lookups`);
    expect((await startRun(body, false)).status).toBe(202);
    // Follows until the platform stops the invocation executing the run (and this stream's, when
    // they share an instance): the stream is cut, with no terminal event.
    // A follower whose invocation knows its deadline: its stream ends cleanly before the limit,
    // with no terminal event, and its instance is not stopped.
    const informedFollower = collect(await fetch(`${informed.url}/api/v1/agent/runs/${body.runId}/events`, { headers: headers() }));
    const seen: SseFrame[] = [];
    try {
      for await (const frame of readSse(await fetch(`${platform.url}/api/v1/agent/runs/${body.runId}/events`, { headers: headers() }))) seen.push(frame);
    } catch {
      // the connection was cut
    }
    await waitFor(() => platform.cut() > cutBefore, TIME_LIMIT_MS * 2);
    expect(events(seen).map((e) => e.type)).toContain("TOOL_CALL_RESULT");
    expect(events(seen).some((e) => e.type === "RUN_FINISHED" || e.type === "RUN_ERROR")).toBe(false);
    expect(await runStatus(body.runId)).toBe("running");

    // Vercel Cron calls the sweeper once the run's executor has missed its heartbeats; it goes on
    // with the run from its log, in the cron's own invocation.
    await waitUntilStale(body.runId);
    const swept = await fetch(`${platform.url}/api/cron/recover-runs`, { headers: { authorization: `Bearer ${CRON_SECRET}` } });
    expect(await swept.json()).toEqual({ duty: "recover-runs", recoveredRuns: 1 });

    // The client rejoins from the last event it saw, on a new invocation, and follows the run to its end.
    const lastId = Number(seen.at(-1)!.id);
    const after = await collect(await fetch(`${platform.url}/api/v1/agent/runs/${body.runId}/events`, { headers: headers({ "last-event-id": String(lastId) }) }));
    expect(after.every((f) => Number(f.id) > lastId)).toBe(true);
    expect(events(after).at(-1)).toMatchObject({ type: "RUN_FINISHED" });
    expect(await runStatus(body.runId)).toBe("completed");
    const ended = events(await informedFollower);
    expect(ended.map((e) => e.type)).toContain("TOOL_CALL_RESULT");
    expect(ended.some((e) => e.type === "RUN_FINISHED" || e.type === "RUN_ERROR")).toBe(false);
    expect(informed.cut()).toBe(0);
    const attempts = await runAttempts(platform, (await adminRuns(platform, { threadId: body.threadId, attempts: "lease_expired" }))[0]!.id);
    expect(attempts.map((a) => a.endReason)).toEqual(["lease_expired", "finished"]);

    expect((await fetch(`${platform.url}/api/cron/recover-runs`)).status).toBe(401);
  });

  it("takes an image above the platform's body limit through a presigned upload to S3", async () => {
    // A valid PNG padded past Vercel's 4.5 MB request limit (bytes after IEND are not read).
    const image = Buffer.concat([Buffer.from(pngBytes(5)), Buffer.alloc(5 * 1024 * 1024)]);
    const presign = await fetch(`${platform.url}/api/v1/agent/attachments/presign`, {
      method: "POST",
      headers: headers({ "content-type": "application/json" }),
      body: JSON.stringify({ mime_type: "image/png", size: image.byteLength }),
    });
    expect(presign.status).toBe(201);
    const presigned = (await presign.json()) as { url: string; upload: { url: string; headers: Record<string, string> } };
    expect(presigned.upload.url.startsWith(s3.endpoint)).toBe(true);
    const put = await fetch(presigned.upload.url, { method: "PUT", headers: presigned.upload.headers, body: image });
    expect(put.status).toBe(200);
    const body = runBody("", {
      messages: [{ id: "m1", role: "user", content: [{ type: "text", text: "what is in it?" }, { type: "binary", mimeType: "image/png", url: presigned.url }] }],
    });
    const res = await startRun(body, true);
    expect(res.status).toBe(200);
    const list = events(await collect(res));
    expect(list.at(-1)).toMatchObject({ type: "RUN_FINISHED" });
  });

  it("adds a knowledge document above the platform's body limit through a presigned upload to S3", async () => {
    const created = await fetch(`${platform.url}/api/trpc/knowledge.create`, {
      method: "POST",
      headers: headers({ "content-type": "application/json" }),
      body: JSON.stringify({ json: { name: `handbook-${randomUUID().slice(0, 8)}` } }),
    });
    expect(created.status).toBe(200);
    const kbId = ((await created.json()) as { result: { data: { json: { id: string } } } }).result.data.json.id;
    const paragraph = "The on-call engineer restarts the ingest worker when the queue backs up. ".repeat(12);
    const doc = Buffer.from(Array.from({ length: Math.ceil((4.6 * 1024 * 1024) / (paragraph.length + 20)) }, (_, i) => `## Step ${i}\n\n${paragraph}\n\n`).join(""));
    const base = `${platform.url}/api/v1/admin/knowledge/${kbId}/documents`;
    const presign = await fetch(`${base}/presign`, { method: "POST", headers: headers({ "content-type": "application/json" }), body: JSON.stringify({ mime_type: "text/markdown", size: doc.byteLength }) });
    expect(presign.status).toBe(201);
    const { key, upload } = (await presign.json()) as { key: string; upload: { url: string; headers: Record<string, string> } };
    expect((await fetch(upload.url, { method: "PUT", headers: upload.headers, body: doc })).status).toBe(200);
    const added = await fetch(`${base}/uploaded`, { method: "POST", headers: headers({ "content-type": "application/json" }), body: JSON.stringify({ key, title: "Runbook", mime_type: "text/markdown" }) });
    expect(added.status).toBe(201);
    expect(await added.json()).toMatchObject({ title: "Runbook", size: doc.byteLength, chunkCount: expect.any(Number) });
  });

  it("continues a run longer than an invocation in the next ones; the client rejoins and gets every event once", { timeout: 3 * 60_000 }, async () => {
    // Five paced tool steps and an answer: longer than the 15 s an invocation executes a run here.
    const body = runBody(`[[delay:600]] ${lookups(5)} five lookups`);
    // And a run that never ends: it goes from invocation to invocation until its own deadline.
    const hang = runBody("[[hang]] this answer never ends either");
    const acceptedAt = Date.now();
    expect((await fetch(`${informed.url}/api/v1/agent/runs`, { method: "POST", headers: headers({ "content-type": "application/json" }), body: JSON.stringify(hang) })).status).toBe(202);
    const hangEvents = followToEnd(informed, hang.runId);

    const res = await fetch(`${informed.url}/api/v1/agent/runs`, { method: "POST", headers: headers({ "content-type": "application/json", accept: "text/event-stream" }), body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    const { frames, rejoins } = await followToEnd(informed, body.runId, res);
    expect(rejoins).toBeGreaterThan(0);
    // Every event once, in order, as one valid AG-UI run.
    expect(frames.map((f) => Number(f.id))).toEqual(frames.map((_, i) => i + 1));
    const list = events(frames);
    expect(await lastValueFrom(verifyEvents()(from(list as BaseEvent[])).pipe(toArray()))).toHaveLength(list.length);
    expect(list.filter((e) => e.type === "RUN_STARTED")).toHaveLength(1);
    expect(list.at(-1)).toMatchObject({ type: "RUN_FINISHED" });
    expect(await collect(await fetch(`${informed.url}/api/v1/agent/runs/${body.runId}/events`, { headers: headers() }))).toEqual(frames);

    // The thread holds the whole answer: each lookup's result, then the model's last words.
    // (A call cut off by a handoff while its arguments streamed is answered as not run, and made again.)
    const history = (await (await fetch(`${informed.url}/api/v1/agent/history?threadId=${body.threadId}`, { headers: headers() })).json()) as { messages: { role: string; content: unknown }[] };
    expect(history.messages.filter((m) => m.role === "tool").length).toBeGreaterThanOrEqual(5);
    expect(JSON.stringify(history.messages.at(-1))).toContain("Tool said:");

    // The console shows where it went: executions handed back at each invocation's end, the last one finished.
    const moved = await adminRuns(informed, { threadId: body.threadId, attempts: "moved" });
    expect(moved).toHaveLength(1);
    const attempts = await runAttempts(informed, moved[0]!.id);
    expect(attempts.length).toBeGreaterThan(1);
    expect(attempts.map((a) => a.endReason)).toEqual([...attempts.slice(1).map(() => "handed_off"), "finished"]);

    // The endless run ended at its deadline counted from its acceptance, not from an invocation's start.
    const hung = events((await hangEvents).frames);
    expect(hung.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "DEADLINE_EXCEEDED" });
    expect(Date.now() - acceptedAt).toBeGreaterThanOrEqual(INFORMED_RUN_DEADLINE_S * 1000);
    const hangAttempts = await runAttempts(informed, (await adminRuns(informed, { threadId: hang.threadId }))[0]!.id);
    expect(hangAttempts.length).toBeGreaterThan(2);
    expect(hangAttempts.at(-1)!.endReason).toBe("deadline");
    expect(informed.cut()).toBe(0);
  });


});

const lookups = (n: number) => Array.from({ length: n }, () => '[[tool:contacts.read {"query":"zz-nobody"}]]').join(" ");

/**
 * Follows a run to its terminal event as a client does: the stream it has (or a new one), then,
 * each time a stream ends without a terminal event, a new one from the last id it received.
 */
async function followToEnd(on: Platform, runId: string, first?: Response): Promise<{ frames: SseFrame[]; rejoins: number }> {
  const frames: SseFrame[] = [];
  let rejoins = -1;
  let res = first;
  while (!["RUN_FINISHED", "RUN_ERROR"].includes(events(frames.slice(-1))[0]?.type ?? "") && rejoins < 20) {
    const last = frames.at(-1)?.id;
    res ??= await fetch(`${on.url}/api/v1/agent/runs/${runId}/events`, { headers: headers(last ? { "last-event-id": last } : {}) });
    frames.push(...(await collect(res)));
    res = undefined;
    rejoins++;
  }
  return { frames, rejoins };
}

async function trpcQuery<T>(on: Platform, procedure: string, input: unknown): Promise<T> {
  const res = await fetch(`${on.url}/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`, { headers: headers() });
  expect(res.status).toBe(200);
  return ((await res.json()) as { result: { data: { json: T } } }).result.data.json;
}

const adminRuns = async (on: Platform, filters: Record<string, unknown>) => (await trpcQuery<{ items: { id: string }[] }>(on, "adminRuns.list", filters)).items;
const runAttempts = async (on: Platform, id: string) => (await trpcQuery<{ attempts: { instance: string; endReason: string | null }[] }>(on, "adminRuns.get", { id })).attempts;

/**
 * Signs in through Auth.js's credentials endpoint as the browser does; the Cookie header, or null.
 * Behind Vercel's HTTPS the cookies take their __Secure-/__Host- names.
 */
async function signIn(email: string, password: string): Promise<string | null> {
  const cookiesFrom = (res: Response) => res.headers.getSetCookie().map((c) => c.split(";")[0]!);
  const csrf = await fetch(`${platform.url}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const jar = cookiesFrom(csrf);
  const res = await fetch(`${platform.url}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.join("; ") },
    body: new URLSearchParams({ email, password, csrfToken, callbackUrl: "/" }),
  });
  const session = cookiesFrom(res).find((c) => /^(__Secure-)?authjs\.session-token=./.test(c));
  return session ? [...jar, session].join("; ") : null;
}

async function collect(res: Response): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  for await (const f of readSse(res)) frames.push(f);
  return frames;
}

/** Waits until the run's last heartbeat is older than recovery's threshold, reading the database. */
async function waitUntilStale(runId: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await waitFor(async () => {
      const { rows } = await client.query<{ stale: boolean }>(`select heartbeat_at < now() - make_interval(secs => $2) as stale from runs where run_id = $1`, [runId, STALE_AFTER_S + 1]);
      return rows[0]?.stale === true;
    }, 60_000);
  } finally {
    await client.end();
  }
}
