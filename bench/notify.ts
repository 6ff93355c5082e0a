// PostgreSQL LISTEN/NOTIFY under load (issue #45, "notification at scale"): does NOTIFY cap how
// many transactions commit per second, and how late does a listener hear of a commit? Each case
// runs `writers` connections committing small inserts (the shape of an event batch) as fast as
// they can, with or without pg_notify in the same statement, while `listeners` connections
// LISTEN. Notifications are queued at commit under one cluster-wide lock, so this is where a cap
// would show: commits/s with notify ÷ without, at the same writers.
import pg from "pg";
import { percentile } from "./load";
import { n } from "./figures";
import { processTree } from "./tree";

/** `apart`: the notifications go in a second transaction, after the insert commits, that does not wait for its WAL flush. */
export type NotifyCase = { writers: number; notify: 0 | 1 | 10; listeners: number; apart?: boolean };
export type NotifyFigures = NotifyCase & {
  commitsPerSec: number;
  /** Notifications heard per second, over all listeners. */
  heardPerSec: number;
  /** From just before the statement was sent to the listener's receipt, p50 / p99, ms. */
  latencyP50: number;
  latencyP99: number;
  /** PostgreSQL's CPU (every backend) per commit, µs; NaN when its processes cannot be read. */
  pgCpuUsPerCommit: number;
};

const CHANNEL = "bench_notify";

/** The cases: at each writer count, no notify, then one notify per commit with 0, 1, 4 listeners, then ten per commit (a group commit of ten runs). */
export function notifyCases(writerCounts: number[]): NotifyCase[] {
  return writerCounts.flatMap((writers) => [
    { writers, notify: 0 as const, listeners: 0 },
    { writers, notify: 1 as const, listeners: 0 },
    { writers, notify: 1 as const, listeners: 1 },
    { writers, notify: 1 as const, listeners: 4 },
    { writers, notify: 10 as const, listeners: 4 },
    { writers, notify: 1 as const, listeners: 4, apart: true },
  ]);
}

async function connect(url: string, count: number): Promise<pg.Client[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return client;
    }),
  );
}

const INSERT = "insert into bench_notify (run_id, seq, events) values (gen_random_uuid(), 1, repeat('x', 400))";

/** The statements of one commit (two when the notifications go apart), each with the send time as $1. */
function statements(c: NotifyCase): string[] {
  // The same shape with or without notifications, so that only pg_notify differs.
  if (c.notify === 0) return [`with ins as (${INSERT} returning id) select $1::text from ins`];
  // The insert and its notifications commit together, as Dispatch's event writer does.
  if (!c.apart) return [`with ins as (${INSERT} returning id) select pg_notify('${CHANNEL}', $1 || ':' || g) from ins, generate_series(1, ${c.notify}) g`];
  // A transaction that notifies gets an XID and a commit record; not waiting for that record's
  // flush keeps the database-wide notify lock for microseconds instead of a WAL flush. Losing it
  // in a crash loses a wake-up, not data.
  return [
    `with ins as (${INSERT} returning id) select $1::text from ins`,
    `select set_config('synchronous_commit', 'off', true), pg_notify('${CHANNEL}', $1 || ':' || g) from generate_series(1, ${c.notify}) g`,
  ];
}

async function measureCase(url: string, pgPid: number | null, c: NotifyCase, ms: { warmup: number; window: number }): Promise<NotifyFigures> {
  const [writers, listeners] = await Promise.all([connect(url, c.writers), connect(url, c.listeners)]);
  const latencies: number[] = [];
  let measuring = false;
  let heard = 0;
  for (const l of listeners) {
    l.on("notification", (msg) => {
      if (!measuring) return;
      heard++;
      const sent = Number(msg.payload?.split(":")[0]);
      if (Number.isFinite(sent)) latencies.push(performance.now() - sent);
    });
    await l.query(`listen ${CHANNEL}`);
  }
  const pgTree = pgPid ? processTree([pgPid], 0) : null;
  const pgCpu = () => (pgTree ? pgTree.usage().postgres.cpuMs : NaN);
  let commits = 0;
  let running = true;
  const texts = statements(c);
  const loops = writers.map(async (w) => {
    while (running) {
      for (const text of texts) await w.query({ text, values: [performance.now().toFixed(3)] });
      if (measuring) commits++;
    }
  });
  await new Promise((r) => setTimeout(r, ms.warmup));
  const cpuAtOpen = pgCpu();
  measuring = true;
  const openedAt = performance.now();
  await new Promise((r) => setTimeout(r, ms.window));
  measuring = false;
  const seconds = (performance.now() - openedAt) / 1000;
  const cpuMs = pgCpu() - cpuAtOpen;
  running = false;
  await Promise.all(loops);
  await Promise.all([...writers, ...listeners].map((client) => client.end()));
  latencies.sort((a, b) => a - b);
  return {
    ...c,
    commitsPerSec: commits / seconds,
    heardPerSec: heard / seconds,
    latencyP50: latencies.length ? percentile(latencies, 50) : NaN,
    latencyP99: latencies.length ? percentile(latencies, 99) : NaN,
    pgCpuUsPerCommit: (cpuMs * 1000) / commits,
  };
}

/** Every case on the database at `url` (a scratch table, dropped after); `pgPid` is its postmaster's pid when local. */
export async function measureNotify(p: { url: string; pgPid: number | null; writerCounts: number[]; warmupMs: number; windowMs: number; log: (line: string) => void }): Promise<NotifyFigures[]> {
  const admin = new pg.Client({ connectionString: p.url });
  await admin.connect();
  await admin.query("drop table if exists bench_notify");
  // Logged, as the event log is: a commit waits for its WAL flush, as Dispatch's do.
  await admin.query("create table bench_notify (id bigserial primary key, run_id uuid not null, seq int not null, events text not null)");
  const out: NotifyFigures[] = [];
  try {
    for (const c of notifyCases(p.writerCounts)) {
      p.log(`notify: ${c.writers} writers, ${c.notify} notifications a commit, ${c.listeners} listeners`);
      out.push(await measureCase(p.url, p.pgPid, c, { warmup: p.warmupMs, window: p.windowMs }));
      await admin.query("truncate bench_notify");
    }
  } finally {
    await admin.query("drop table if exists bench_notify");
    await admin.end();
  }
  return out;
}

/** The report's table: each notifying case's commits/s as a ratio to the same writers without NOTIFY. */
export function notifyTable(rows: NotifyFigures[]): string[] {
  const base = (w: number) => rows.find((r) => r.writers === w && r.notify === 0)?.commitsPerSec ?? NaN;
  return [
    "| writers | notifications a commit | listeners | commits/s (of the insert) | vs no NOTIFY | heard/s | latency p50 / p99 ms | PostgreSQL CPU µs/commit |",
    "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map(
      (r) =>
        `| ${r.writers} | ${r.notify}${r.apart ? ", apart" : ""} | ${r.listeners} | ${n(r.commitsPerSec)} | ${r.notify === 0 ? "–" : `${(r.commitsPerSec / base(r.writers)).toFixed(2)}×`} | ${r.listeners ? n(r.heardPerSec) : "–"} | ${r.listeners ? `${n(r.latencyP50, 2)} / ${n(r.latencyP99, 2)}` : "–"} | ${n(r.pgCpuUsPerCommit)} |`,
    ),
  ];
}
