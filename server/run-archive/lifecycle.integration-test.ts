import { GetObjectCommand, HeadObjectCommand } from "@aws-sdk/client-s3";
import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startOwnDatabase } from "@/test/own-database";
import { s3ClientOf, startS3Server } from "@/test/s3-server";

// The event log's lifecycle end to end: runs made over HTTP by a production server whose
// attachment storage is a real S3-compatible server, their logs archived and expired by the duties'
// own functions (in this process, on the same database and storage, with the clock moved on), and
// read back through the doors a client uses. The environment names the storage before any app
// module loads, so this process archives where the server reads.
const s3 = await startS3Server();
Object.assign(process.env, s3.env);
// A database of this file's own: the duties archive and expire every due run of the database they
// run on, and with the clock moved on, that would be every other test file's runs as well.
const database = await startOwnDatabase("lifecycle");
let s3Stopped = false;
const stopS3 = async () => {
  if (!s3Stopped) await s3.stop();
  s3Stopped = true;
};
afterAll(stopS3);

vi.mock("@/server/auth/session", () => ({ getSessionPrincipal: async () => null }));

const { createTestUser } = await import("@/test/helpers");
const { runsOver } = await import("./test-fixtures");
const { startExtraServer } = await import("@/test/extra-server");
const { callerAs } = await import("@/test/trpc-callers");
const { getPool } = await import("@/server/db");
const { archiveRunsOnce, expireRunEventsOnce } = await import("./service");
const { deleteThread } = await import("@/server/threads/service/threads");

const DAY = 86_400_000;
const CALENDAR_DAY = '[[tool:calendar.read {"mode":"day","date":"2026-01-02","time_zone":"UTC"}]]';
const client = s3ClientOf(s3);
const LIFECYCLE_ENV = { CRON_SECRET: "lifecycle-cron-secret", RUN_ARCHIVE_AFTER_DAYS: "1", RUN_EVENTS_RETENTION_DAYS: "30" };
let server: Awaited<ReturnType<typeof startExtraServer>>;
let user: Awaited<ReturnType<typeof createTestUser>>;
let admin: ReturnType<typeof callerAs>;
let get: ReturnType<typeof runsOver>["get"];
let finishedRun: ReturnType<typeof runsOver>["finishedRun"];
let replay: ReturnType<typeof runsOver>["replay"];

beforeAll(async () => {
  // Its own lifecycle duties are on, for the cron route; its start-up tick finds nothing due yet.
  [server, user] = await Promise.all([startExtraServer({ ...s3.env, ...LIFECYCLE_ENV, DATABASE_URL: database.url }), createTestUser()]);
  admin = callerAs(await createTestUser({ role: "admin" }));
  ({ get, finishedRun, replay } = runsOver(server.url, user.apiKey));
}, 90_000);
afterAll(() => server?.child.kill("SIGKILL"));

const hotRows = async (id: string) =>
  (await getPool().query<{ n: number }>(`select count(*)::int as n from run_event_batches where run_id = $1`, [id])).rows[0]!.n;
const archiveRow = async (id: string) => (await getPool().query(`select * from run_event_archives where run_id = $1`, [id])).rows[0];

describe("event log lifecycle", () => {
  let first: { runId: string; threadId: string; id: string };
  let before: { full: string; fromThree: string; history: unknown; detail: unknown; events: unknown };

  it("archives a finished run's log to storage and replays it byte for byte through the events door", async () => {
    // A tool call, and text that must survive byte for byte.
    first = await finishedRun(`${CALENDAR_DAY} the lighthouse héllo ✓ 😀 "quoted" \\ back\u2028slash`);
    const [full, fromThree, history] = await Promise.all([
      replay(first.runId),
      replay(first.runId, 3),
      get(`/api/v1/agent/history?threadId=${first.threadId}`).then((r) => r.json()),
    ]);
    expect(full.body).toContain("RUN_FINISHED");
    before = {
      full: full.body,
      fromThree: fromThree.body,
      history,
      detail: await admin.adminRuns.get({ id: first.id }),
      events: await admin.adminRuns.events({ id: first.id, limit: 200 }),
    };
    const batches = await hotRows(first.id);
    expect(batches).toBeGreaterThan(0);

    // Not due yet: nothing moves.
    expect(await archiveRunsOnce({ afterDays: 1 })).toEqual({ archived: 0, failed: 0 });
    const tick = await archiveRunsOnce({ now: Date.now() + 2 * DAY, afterDays: 1 });
    expect(tick.failed).toBe(0);
    expect(tick.archived).toBeGreaterThanOrEqual(1);

    expect(await hotRows(first.id)).toBe(0);
    const row = await archiveRow(first.id);
    expect(row).toMatchObject({ bucket: s3.bucket, path: `run-events/${user.id}/${first.id}.ndjson.gz`, expired_at: null });
    const object = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: row.path }));
    const bytes = Buffer.from(await object.Body!.transformToByteArray());
    expect(bytes.byteLength).toBe(row.bytes);
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(row.sha256);
    const lines = gunzipSync(bytes).toString("utf8").trim().split("\n").map((l) => JSON.parse(l) as { seq: number; type: string });
    expect(lines.map((l) => l.seq)).toEqual(Array.from({ length: row.event_count }, (_, i) => i + 1));
    expect(lines.at(-1)!.type).toBe("RUN_FINISHED");
    expect(lines.map((l) => l.type)).toContain("TOOL_CALL_RESULT");

    expect(await replay(first.runId)).toEqual({ status: 200, body: before.full });
  });

  it("replays an archived log longer than a follower's page whole", async () => {
    // About 700 content events: a follower reads the log 500 events at a time.
    const long = await finishedRun(Array.from({ length: 700 }, (_, i) => `w${i}`).join(" "));
    const hot = await replay(long.runId);
    expect(hot.body.match(/"TEXT_MESSAGE_CONTENT"/g)!.length).toBeGreaterThan(500);
    expect((await archiveRunsOnce({ now: Date.now() + 2 * DAY, afterDays: 1 })).failed).toBe(0);
    expect(await hotRows(long.id)).toBe(0);
    expect(await replay(long.runId)).toEqual({ status: 200, body: hot.body });
  });

  it("resumes an archived run from a client's last event id, by query and by header", async () => {
    expect(await replay(first.runId, 3)).toEqual({ status: 200, body: before.fromThree });
    expect(await replay(first.runId, 3, "header")).toEqual({ status: 200, body: before.fromThree });
    // A resume point past the log's end is still refused as one the stream never sent.
    const past = await replay(first.runId, 10_000);
    expect(past.status).toBe(400);
  });

  it("shows the archived run on the console's run page as it was, and history unchanged", async () => {
    const detail = await admin.adminRuns.get({ id: first.id });
    expect({ ...detail, eventLog: "hot" }).toEqual(before.detail);
    expect(detail.eventLog).toBe("archived");
    expect(await admin.adminRuns.events({ id: first.id, limit: 200 })).toEqual(before.events);
    expect(await get(`/api/v1/agent/history?threadId=${first.threadId}`).then((r) => r.json())).toEqual(before.history);
  });

  it("expires logs past retention, leaving the thread whole and a replay that says it expired", async () => {
    const hot = await finishedRun("keep the conversation");
    const historyBefore = await get(`/api/v1/agent/history?threadId=${hot.threadId}`).then((r) => r.json());
    const key = (await archiveRow(first.id)).path as string;

    expect(await expireRunEventsOnce({ afterDays: 30 })).toBe(0);
    expect(await expireRunEventsOnce({ now: Date.now() + 31 * DAY, afterDays: 30 })).toBeGreaterThanOrEqual(2);

    // The archived run's object is gone, the hot run's rows too; both keep a tombstone.
    await expect(client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key }))).rejects.toMatchObject({ name: "NotFound" });
    expect(await hotRows(hot.id)).toBe(0);
    expect(await archiveRow(hot.id)).toMatchObject({ bucket: null, expired_at: expect.any(Date) });
    for (const run of [first, hot]) {
      const res = await replay(run.runId);
      expect(res.status).toBe(410);
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: "GONE", message: expect.stringMatching(/^The events of this run expired on \d{4}-\d{2}-\d{2} under this deployment's retention policy/) } });
    }
    expect((await replay(first.runId, 3, "header")).status).toBe(410);

    // The thread is whole: its history, its run.
    expect(await get(`/api/v1/agent/history?threadId=${hot.threadId}`).then((r) => r.json())).toEqual(historyBefore);
    expect(await get(`/api/v1/agent/history?threadId=${first.threadId}`).then((r) => r.json())).toEqual(before.history);
    const run = await get(`/api/v1/agent/runs/${hot.runId}`);
    expect(run.status).toBe(200);
    expect(await run.json()).toMatchObject({ status: "completed" });
    expect(await admin.adminRuns.get({ id: hot.id })).toMatchObject({ eventLog: "expired", eventCount: 0 });
    expect(await admin.adminRuns.get({ id: first.id })).toMatchObject({ eventLog: "expired", eventCount: 0 });
  });

  it("archives a run once when two instances' ticks take it at the same time", async () => {
    const run = await finishedRun("two archivers");
    const full = await replay(run.runId);
    const later = { now: Date.now() + 2 * DAY, afterDays: 1 };
    const ticks = await Promise.all([archiveRunsOnce(later), archiveRunsOnce(later)]);
    expect(ticks.map((t) => t.failed)).toEqual([0, 0]);
    expect(ticks[0]!.archived + ticks[1]!.archived).toBe(1);
    expect(await hotRows(run.id)).toBe(0);
    expect(await replay(run.runId)).toEqual({ status: 200, body: full.body });
  });

  it("deletes a deleted thread's archived event logs with it", async () => {
    const run = await finishedRun("forget this chat");
    await archiveRunsOnce({ now: Date.now() + 2 * DAY, afterDays: 1 });
    const { path } = await archiveRow(run.id);
    await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: path }));
    const { rows } = await getPool().query<{ threadId: string }>(`select thread_id as "threadId" from runs where id = $1`, [run.id]);
    await deleteThread({ userId: user.id, id: rows[0]!.threadId });
    await expect(client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: path }))).rejects.toMatchObject({ name: "NotFound" });
    expect(await archiveRow(run.id)).toBeUndefined();
  });

  it("runs as the archive-runs and expire-run-events duties of the cron route, by the deployment's policy", async () => {
    const run = await finishedRun("by the duties");
    const full = await replay(run.runId);
    const duty = async (name: string) => {
      const res = await fetch(`${server.url}/api/cron/${name}`, { headers: { authorization: `Bearer ${LIFECYCLE_ENV.CRON_SECRET}` } });
      expect(res.status).toBe(200);
      return res.json();
    };
    expect(await duty("archive-runs")).toEqual({ duty: "archive-runs", archivedRuns: 0, failedRuns: 0 });
    // Two days old, by the clock the policy reads.
    await getPool().query(`update runs set created_at = created_at - interval '2 days', finished_at = finished_at - interval '2 days' where id = $1`, [run.id]);
    expect(await duty("archive-runs")).toEqual({ duty: "archive-runs", archivedRuns: 1, failedRuns: 0 });
    expect(await hotRows(run.id)).toBe(0);
    expect(await replay(run.runId)).toEqual({ status: 200, body: full.body });

    expect(await duty("expire-run-events")).toEqual({ duty: "expire-run-events", expiredRuns: 0 });
    await getPool().query(`update runs set created_at = created_at - interval '30 days', finished_at = finished_at - interval '30 days' where id = $1`, [run.id]);
    expect(await duty("expire-run-events")).toEqual({ duty: "expire-run-events", expiredRuns: 1 });
    expect((await replay(run.runId)).status).toBe(410);
  });

  it("loses nothing when the storage is down: the log stays in the database and replays as before", async () => {
    const run = await finishedRun("storage outage");
    const full = await replay(run.runId);
    const batches = await hotRows(run.id);
    await stopS3();

    const tick = await archiveRunsOnce({ now: Date.now() + 2 * DAY, afterDays: 1 });
    expect(tick).toEqual({ archived: 0, failed: 1 });
    expect(await hotRows(run.id)).toBe(batches);
    expect(await archiveRow(run.id)).toBeUndefined();
    expect(await replay(run.runId)).toEqual({ status: 200, body: full.body });
  });
});
