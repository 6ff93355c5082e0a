import { randomUUID } from "node:crypto";
import { describe, expect, it, vi } from "vitest";

// The cron route's secret, set before server/env.ts is first read.
const CRON_SECRET = vi.hoisted(() => (process.env.CRON_SECRET = "schedules-cron-secret-for-tests"));
vi.mock("@/server/auth/session", () => ({ getSessionPrincipal: async () => null }));

import { getPool } from "@/server/db";
import { runScheduledDuty } from "@/server/operations/service/scheduled-duties";
import { extraServersForFile, startExtraServer } from "@/test/extra-server";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { callerAs } from "@/test/trpc-callers";
import { waitFor } from "@/test/wait";

// Scheduled runs on real servers: the suite's server and a second instance on the same database
// both take graphile-worker jobs, so every due time below could fire on either (or, with a bug,
// on both). Time is moved by making schedules due: one-off times in the past, cron seconds just ahead.

type TestUser = Awaited<ReturnType<typeof createTestUser>>;
type Schedule = { id: string; paused: boolean; nextRunAt: string | null; lastRunAt: string | null; lastRunId: string | null; lastError: string | null; runCount: number };

const servers = extraServersForFile(1);

function api(key: string, path: string, init: { method?: string; body?: unknown; origin?: string } = {}): Promise<Response> {
  return fetch(`${init.origin ?? baseUrl()}/api/v1${path}`, {
    method: init.method ?? "GET",
    headers: { ...bearer(key), ...(init.body === undefined ? {} : { "content-type": "application/json" }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

async function json<T = Record<string, unknown>>(res: Promise<Response>, status = 200): Promise<T> {
  const response = await res;
  const body = (await response.json()) as T;
  expect(response.status, JSON.stringify(body)).toBe(status);
  return body;
}

const create = (user: TestUser, body: Record<string, unknown>, origin?: string) =>
  json<Schedule>(api(user.apiKey, "/schedules", { method: "POST", body: { message: `scheduled ${randomUUID()}`, ...body }, origin }), 201);

async function row(id: string) {
  const { rows } = await getPool().query<{ runCount: number; nextRunAt: Date | null; lastRunAt: Date | null }>(
    `select run_count as "runCount", next_run_at as "nextRunAt", last_run_at as "lastRunAt" from schedules where id = $1`,
    [id],
  );
  return rows[0]!;
}

/** The user's runs: how many, and how many distinct threads they went to. */
async function runsOf(userId: string) {
  const { rows } = await getPool().query<{ n: number; threads: number }>(`select count(*)::int as n, count(distinct thread_id)::int as threads from runs where user_id = $1`, [userId]);
  return rows[0]!;
}

const past = (ms = 1_000) => new Date(Date.now() - ms).toISOString();

/** A six-field cron expression (UTC) due at `count` consecutive seconds starting 2-3 s from now, within one minute. */
function nextSeconds(count: number): { cron: string; times: number[] } {
  let start = new Date(Math.ceil(Date.now() / 1000) * 1000 + 2_000);
  if (start.getUTCSeconds() > 59 - count) start = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate(), start.getUTCHours(), start.getUTCMinutes() + 1));
  const s = start.getUTCSeconds();
  const seconds = Array.from({ length: count }, (_, i) => s + i).join(",");
  return {
    cron: `${seconds} ${start.getUTCMinutes()} ${start.getUTCHours()} ${start.getUTCDate()} ${start.getUTCMonth() + 1} *`,
    times: Array.from({ length: count }, (_, i) => start.getTime() + i * 1000),
  };
}

describe("scheduled runs across instances", () => {
  it("fire each due time exactly once with two instances running", { timeout: 60_000 }, async () => {
    const user = await createTestUser();
    const { cron, times } = nextSeconds(3);
    const schedule = await create(user, { cron, timeZone: "UTC" });
    expect(Date.parse(schedule.nextRunAt!)).toBe(times[0]);
    // Eight one-off times already past, made on the other instance.
    const oneOffs = await Promise.all(Array.from({ length: 8 }, () => create(user, { runAt: past() }, servers[0]!.url)));

    await waitFor(async () => (await row(schedule.id)).lastRunAt?.getTime() === times[2], 30_000);
    for (const o of oneOffs) await waitFor(async () => (await row(o.id)).runCount === 1, 20_000);
    const fired = await row(schedule.id);
    expect(fired.runCount).toBe(3);
    // Its next time is a year away (the same second next year).
    expect(fired.nextRunAt!.getTime()).toBeGreaterThan(Date.now() + 300 * 86_400_000);
    // One run, on a thread of its own, for each due time: 3 + 8.
    expect(await runsOf(user.id)).toEqual({ n: 11, threads: 11 });
    for (const o of oneOffs) expect(await json<Schedule>(api(user.apiKey, `/schedules/${o.id}`))).toMatchObject({ runCount: 1, nextRunAt: null, lastError: null });

    const last = await json<Schedule>(api(user.apiKey, `/schedules/${schedule.id}`));
    const run = await json<{ status: string; threadId: string }>(api(user.apiKey, `/agent/runs/${last.lastRunId}`));
    expect(run.threadId).toBeTruthy();
  });

  it("go on exactly once across a restart of an instance", { timeout: 90_000 }, async () => {
    const user = await createTestUser();
    const { cron, times } = nextSeconds(4);
    const schedule = await create(user, { cron, timeZone: "UTC" });
    await waitFor(async () => (await row(schedule.id)).runCount >= 1, 30_000);
    // The instance goes down hard (a job it held is unlocked by the others' sweep) and another starts.
    servers[0]!.child.kill("SIGKILL");
    servers.push(await startExtraServer());
    await waitFor(async () => (await row(schedule.id)).lastRunAt?.getTime() === times[3], 60_000);
    expect((await row(schedule.id)).runCount).toBe(4);
    expect(await runsOf(user.id)).toEqual({ n: 4, threads: 4 });
  });

  it("fire once for times missed while down, then go on from the next time after now", { timeout: 30_000 }, async () => {
    const user = await createTestUser();
    const schedule = await create(user, { cron: "*/5 * * * *", timeZone: "Europe/Berlin" });
    // As if every instance had been down for an hour: the job of a due time an hour ago waits.
    await getPool().query(
      `with s as (update schedules set next_run_at = date_trunc('minute', now()) - interval '1 hour' where id = $1 returning id, next_run_at)
       select graphile_worker.add_job('dispatch_schedule_fire', json_build_object('id', s.id, 'due', (extract(epoch from s.next_run_at) * 1000)::bigint), run_at := s.next_run_at) from s`,
      [schedule.id],
    );
    await waitFor(async () => (await row(schedule.id)).runCount === 1, 20_000);
    const after = await row(schedule.id);
    expect(after.nextRunAt!.getTime()).toBeGreaterThan(Date.now());
    expect(after.nextRunAt!.getTime()).toBeLessThanOrEqual(Date.now() + 5 * 60_000);
    expect((await runsOf(user.id)).n).toBe(1);
  });
});

describe("schedules", () => {
  it("do not fire while paused, and fire once resumed", { timeout: 30_000 }, async () => {
    const user = await createTestUser();
    const paused = await create(user, { runAt: past(), paused: true });
    expect(paused).toMatchObject({ paused: true, nextRunAt: null });
    const other = await create(user, { runAt: past() });
    await waitFor(async () => (await row(other.id)).runCount === 1, 20_000);
    const { rows } = await getPool().query(`select 1 from graphile_worker.jobs where key like $1`, [`schedule:${paused.id}:%`]);
    expect(rows).toEqual([]);
    expect((await row(paused.id)).runCount).toBe(0);

    const resumed = await json<Schedule>(api(user.apiKey, `/schedules/${paused.id}`, { method: "PATCH", body: { paused: false } }));
    expect(resumed.paused).toBe(false);
    await waitFor(async () => (await row(paused.id)).runCount === 1, 20_000);
    // Pausing a cron schedule takes its next time away.
    const cron = await create(user, { cron: "0 9 * * 1", timeZone: "Europe/Berlin" });
    expect(await json<Schedule>(api(user.apiKey, `/schedules/${cron.id}`, { method: "PATCH", body: { paused: true } }))).toMatchObject({ paused: true, nextRunAt: null });
  });

  it("refuse a bad cron expression, time zone or timing with a 400 that says why", async () => {
    const user = await createTestUser();
    const refused = async (body: Record<string, unknown>) => (await json<{ error: { message: string } }>(api(user.apiKey, "/schedules", { method: "POST", body: { message: "hi", ...body } }), 400)).error.message;
    expect(await refused({ cron: "every monday", timeZone: "UTC" })).toMatch(/^cron: "every monday" is not a valid cron expression/);
    expect(await refused({ cron: "61 * * * *" })).toMatch(/cron: "61 \* \* \* \*" is not a valid cron expression \(Invalid value for minute: 61\)/);
    expect(await refused({ cron: "0 9 * * 1", timeZone: "Mars/Olympus_Mons" })).toBe('timeZone: "Mars/Olympus_Mons" is not an IANA time zone (for example Europe/Berlin, America/New_York, UTC)');
    expect(await refused({ cron: "0 0 30 2 *" })).toBe('cron: "0 0 30 2 *" is never due');
    expect(await refused({})).toMatch(/either cron \(with timeZone\) or runAt/);
    expect(await refused({ cron: "0 9 * * 1", runAt: past() })).toMatch(/either cron \(with timeZone\) or runAt/);
    expect(await refused({ runAt: "tomorrow" })).toMatch(/runAt must be an ISO 8601 date-time/);
    expect(await refused({ runAt: past(), threadId: randomUUID() })).toMatch(/^threadId: you have no thread/);
    expect(await json<{ items: Schedule[] }>(api(user.apiKey, "/schedules"))).toEqual({ items: [] });
  });

  it("are their owner's: another user's is a 404, and lists hold only one's own", async () => {
    const [owner, stranger] = [await createTestUser(), await createTestUser()];
    const schedule = await create(owner, { cron: "0 9 * * 1", timeZone: "Europe/Berlin" });
    await json(api(stranger.apiKey, `/schedules/${schedule.id}`), 404);
    await json(api(stranger.apiKey, `/schedules/${schedule.id}`, { method: "PATCH", body: { paused: true } }), 404);
    await json(api(stranger.apiKey, `/schedules/${schedule.id}`, { method: "DELETE" }), 404);
    await json(api(stranger.apiKey, "/schedules/not-a-uuid"), 404);
    expect((await json<{ items: Schedule[] }>(api(stranger.apiKey, "/schedules"))).items).toEqual([]);
    expect((await json<{ items: Schedule[] }>(api(owner.apiKey, "/schedules"))).items.map((s) => s.id)).toEqual([schedule.id]);
    expect(await json(api(owner.apiKey, `/schedules/${schedule.id}`, { method: "DELETE" }))).toEqual({ deleted: true });
    await json(api(owner.apiKey, `/schedules/${schedule.id}`), 404);
  });

  it("run on the owner's own thread when they name it", { timeout: 30_000 }, async () => {
    const user = await createTestUser();
    const first = await create(user, { runAt: past() });
    await waitFor(async () => (await row(first.id)).runCount === 1, 20_000);
    const { lastRunId } = await json<Schedule>(api(user.apiKey, `/schedules/${first.id}`));
    const { threadId } = await json<{ threadId: string }>(api(user.apiKey, `/agent/runs/${lastRunId}`));
    const second = await create(user, { runAt: past(), threadId });
    await waitFor(async () => (await row(second.id)).runCount === 1, 20_000);
    expect(await runsOf(user.id)).toEqual({ n: 2, threads: 1 });
  });

  it("fire through the cron route's fire-schedules duty (Vercel), which wants CRON_SECRET", { timeout: 30_000 }, async () => {
    await expect(runScheduledDuty({ duty: "fire-schedules", authorization: null })).rejects.toMatchObject({ status: 401 });
    const user = await createTestUser();
    const schedule = await create(user, { runAt: past(60_000) });
    // Its job lost: the duty gives it one and runs it (or the servers' workers take it first: either way, once).
    await getPool().query(`select graphile_worker.remove_job(key) from graphile_worker.jobs where key like $1`, [`schedule:${schedule.id}:%`]);
    const done = await runScheduledDuty({ duty: "fire-schedules", authorization: `Bearer ${CRON_SECRET}` });
    expect(done.startedScheduledRuns).toBeGreaterThanOrEqual(0);
    await waitFor(async () => (await row(schedule.id)).runCount === 1, 20_000);
    expect((await runsOf(user.id)).n).toBe(1);
  });

  it("are listed, paused, resumed and deleted from the chat settings (each user's own) and the console (everyone's)", async () => {
    const [owner, stranger, admin] = [await createTestUser(), await createTestUser(), await createTestUser({ role: "admin" })];
    const schedule = await create(owner, { cron: "0 9 * * 1", timeZone: "Europe/Berlin" });
    const mine = callerAs(owner).schedules;
    expect((await mine.mine()).map((s) => s.id)).toEqual([schedule.id]);
    expect(await callerAs(stranger).schedules.mine()).toEqual([]);
    await expect(callerAs(stranger).schedules.setPaused({ id: schedule.id, paused: true })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await mine.setPaused({ id: schedule.id, paused: true })).toMatchObject({ paused: true, nextRunAt: null });
    const resumed = await mine.setPaused({ id: schedule.id, paused: false });
    expect(new Date(resumed.nextRunAt!).getUTCDay()).toBe(1);

    await expect(callerAs(owner).schedules.all()).rejects.toMatchObject({ code: "FORBIDDEN" });
    const adminApi = callerAs(admin).schedules;
    expect((await adminApi.all()).find((s) => s.id === schedule.id)).toMatchObject({ userId: owner.id, paused: false });
    expect(await adminApi.adminSetPaused({ id: schedule.id, paused: true })).toMatchObject({ paused: true });
    await adminApi.adminRemove({ id: schedule.id });
    expect(await mine.mine()).toEqual([]);
  });
});
