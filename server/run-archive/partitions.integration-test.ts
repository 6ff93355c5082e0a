import { EventType } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startOwnDatabase } from "@/test/own-database";

// The event log's monthly partitions: made ahead by the archive duty, dropped whole by retention
// while the current month's runs stream on, the dropped runs' replays answering 410 and their
// threads whole. Runs are made over HTTP by a production server and, for the one that streams
// during the drop, executed in this process; "older" runs are moved back in time, run and log
// together. A database of this file's own: retention here expires every due run of its database.
const database = await startOwnDatabase("partitions");

vi.mock("@/server/auth/session", () => ({ getSessionPrincipal: async () => null }));

const { createTestUser } = await import("@/test/helpers");
const { runInput } = await import("@/test/runs");
const { runsOver } = await import("./test-fixtures");
const { startExtraServer } = await import("@/test/extra-server");
const { getPool } = await import("@/server/db");
const { expireRunEventsOnce } = await import("./service");
const { parseRunAgentInput } = await import("@/server/protocols/ag-ui/run-input");
const { acceptRun } = await import("@/server/runs/accept");
const { executeRun } = await import("@/server/runs/execute");
const { readEvents } = await import("@/server/runs/event-log");

const CRON_SECRET = "partitions-cron-secret";
let server: Awaited<ReturnType<typeof startExtraServer>>;
let user: Awaited<ReturnType<typeof createTestUser>>;
let get: ReturnType<typeof runsOver>["get"];
let finishedRun: ReturnType<typeof runsOver>["finishedRun"];
let replay: ReturnType<typeof runsOver>["replay"];

beforeAll(async () => {
  // Its lifecycle timer is on (it always is, for the partitions); no retention policy of its own.
  [server, user] = await Promise.all([startExtraServer({ CRON_SECRET, DATABASE_URL: database.url }), createTestUser()]);
  ({ get, finishedRun, replay } = runsOver(server.url, user.apiKey));
}, 90_000);
afterAll(() => server?.child.kill("SIGKILL"));

const query = async <T extends Record<string, unknown>>(sql: string, params: unknown[] = []) => (await getPool().query<T>(sql, params)).rows;

const history = async (threadId: string) => (await get(`/api/v1/agent/history?threadId=${threadId}`)).json();

/** The month `offset` months from the database's current one, as its partition's name. */
async function partitionName(offset: number): Promise<string> {
  const [row] = await query<{ name: string }>(`select 'run_event_batches_' || to_char(date_trunc('month', localtimestamp) + make_interval(months => $1::int), 'YYYY_MM') as name`, [offset]);
  return row!.name;
}
const partitions = async () =>
  (await query<{ name: string }>(`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'run_event_batches'::regclass order by 1`)).map((r) => r.name);
/** Where each of the run's batches is stored. */
const homes = async (id: string) => (await query<{ home: string }>(`select tableoid::regclass::text as home from run_event_batches where run_id = $1`, [id])).map((r) => r.home);

/** Moves a run, its log with it, `months` months in time (negative: back). */
async function moveRun(id: string, months: number): Promise<void> {
  const shift = `make_interval(months => ${months})`;
  await getPool().query(`update runs set created_at = created_at + ${shift}, finished_at = finished_at + ${shift} where id = $1`, [id]);
  await getPool().query(`update run_event_batches set run_created_at = run_created_at + ${shift} where run_id = $1`, [id]);
}

const dropPartition = (name: string) => getPool().query(`alter table run_event_batches detach partition ${name}; drop table ${name}`);

describe("event log partitions", () => {
  it("are made ahead by the archive-runs duty, and take back the rows the default partition held meanwhile", async () => {
    const [now, next, afterNext] = await Promise.all([partitionName(0), partitionName(1), partitionName(2)]);
    expect(await partitions()).toEqual(expect.arrayContaining([now, next, afterNext, "run_event_batches_default"]));

    // The upkeep fell behind: next month has no partition, and a run of next month's lands in the default one.
    await dropPartition(afterNext);
    await dropPartition(next);
    const run = await finishedRun("a run of next month");
    const full = await replay(run.runId);
    const batches = (await homes(run.id)).length;
    await moveRun(run.id, 1);
    expect(new Set(await homes(run.id))).toEqual(new Set(["run_event_batches_default"]));

    const res = await fetch(`${server.url}/api/cron/archive-runs`, { headers: { authorization: `Bearer ${CRON_SECRET}` } });
    expect(res.status).toBe(200);
    expect(await partitions()).toEqual(expect.arrayContaining([next, afterNext]));
    expect(await homes(run.id)).toEqual(Array.from({ length: batches }, () => next));
    expect(await query(`select count(*)::int as n from run_event_batches_default`)).toEqual([{ n: 0 }]);
    expect(await replay(run.runId)).toEqual({ status: 200, body: full.body });
  });

  it("drops a month whose runs are all past retention while this month's runs stream on; replays say 410, threads stay whole", async () => {
    const old = await partitionName(-3);
    await getPool().query(`select dispatch_event_log_partition(date_trunc('month', localtimestamp) - interval '3 months')`);
    const [a, b] = [await finishedRun("an old conversation"), await finishedRun("another old one")];
    const before = { a: await history(a.threadId), b: await history(b.threadId) };
    const counts = await query<{ id: string; n: number; last: number }>(
      `select run_id as id, sum(last_seq - first_seq + 1)::int as n, max(last_seq) as last from run_event_batches where run_id = any($1::uuid[]) group by run_id order by run_id`,
      [[a.id, b.id]],
    );
    await moveRun(a.id, -3);
    await moveRun(b.id, -3);
    expect(new Set([...(await homes(a.id)), ...(await homes(b.id))])).toEqual(new Set([old]));

    // A run of this month streams while retention drops the old month.
    const parsed = parseRunAgentInput(JSON.stringify(runInput({}, "streaming now")));
    if (!parsed.ok) throw new Error(parsed.message);
    const { run: live } = await acceptRun({ userId: user.id, input: parsed.input, protocol: "ag-ui", runner: "test" });
    let releaseDrop!: () => void;
    const dropMay = new Promise<void>((resolve) => (releaseDrop = resolve));
    const streams = executeRun(
      { id: live.id, runId: live.runId, threadId: live.threadId, userId: live.userId, protocol: live.protocol, deadlineAt: live.deadlineAt, createdAt: live.createdAt },
      parsed.input,
      {
        id: "test:streams",
        run: async ({ emit }) => {
          emit({ type: EventType.TEXT_MESSAGE_START, messageId: "m-live", role: "assistant" });
          for (let i = 0; i < 300; i++) {
            emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m-live", delta: `t${i} ` });
            if (i === 20) releaseDrop();
            await new Promise((resolve) => setImmediate(resolve));
          }
          emit({ type: EventType.TEXT_MESSAGE_END, messageId: "m-live" });
          return {};
        },
      },
    );
    await dropMay;
    const expired = await expireRunEventsOnce({ afterDays: 30 });
    await streams;

    expect(expired).toBe(2);
    expect(await partitions()).not.toContain(old);
    expect([...(await homes(a.id)), ...(await homes(b.id))]).toEqual([]);
    expect(
      await query(`select run_id as id, event_count as n, last_seq as last from run_event_archives where run_id = any($1::uuid[]) and expired_at is not null order by run_id`, [
        [a.id, b.id],
      ]),
    ).toEqual(counts);
    for (const run of [a, b]) {
      const res = await replay(run.runId);
      expect(res.status).toBe(410);
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: "GONE" } });
      expect(await (await get(`/api/v1/agent/runs/${run.runId}`)).json()).toMatchObject({ status: "completed" });
    }
    expect({ a: await history(a.threadId), b: await history(b.threadId) }).toEqual(before);

    // The live run's log is whole: every event, in order, none lost to the drop.
    const events = await readEvents({ runId: live.id, after: 0, limit: 1000 });
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 304 }, (_, i) => i + 1));
    expect(JSON.parse(events.at(-1)!.json)).toMatchObject({ type: "RUN_FINISHED" });
    expect((await replay(live.runId)).status).toBe(200);
  });

  it("keeps a month while one of its runs has not finished, and drops it once it has", async () => {
    const old = await partitionName(-4);
    await getPool().query(`select dispatch_event_log_partition(date_trunc('month', localtimestamp) - interval '4 months')`);
    const run = await finishedRun("still going, months later");
    const batches = (await homes(run.id)).length;
    await moveRun(run.id, -4);
    await getPool().query(`update runs set status = 'running', finished_at = null where id = $1`, [run.id]);

    expect(await expireRunEventsOnce({ afterDays: 30 })).toBe(0);
    expect(await homes(run.id)).toEqual(Array.from({ length: batches }, () => old));

    await getPool().query(`update runs set status = 'completed', finished_at = created_at + interval '1 minute' where id = $1`, [run.id]);
    expect(await expireRunEventsOnce({ afterDays: 30 })).toBe(1);
    expect(await partitions()).not.toContain(old);
    expect((await replay(run.runId)).status).toBe(410);
  });
});
