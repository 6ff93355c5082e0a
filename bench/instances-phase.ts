// Scaling out on the same cores (#45): one Dispatch instance against two instances of the same
// build sharing its PostgreSQL (the second started by `npm start` with the first's DATABASE_URL
// and AUTH_SECRET, as an operator adds one), both behind the same round-robin proxy in a process
// of its own, so the only difference is the second instance; the proxy's CPU is read apart and
// not counted against Dispatch. Both instances run throughout (the second idles while the first
// is measured alone) and are warmed alike; the measurements go one, two, two, one, so that a
// machine whose speed drifts during the phase moves both sides alike.
import { n } from "./figures";
import { measureRuns, type RunsFigures, type Target, type Threading } from "./runs-phase";
import { startProxy, type DispatchServer } from "./servers";
import { combinedTree } from "./tree";

export type InstancesKey = "new" | "follow-up";

/** One measurement: the instances behind the proxy, the figures, and how many requests each instance got (its warm-up included). */
export type InstancesMeasurement = { instances: number; figures: RunsFigures; served: number[] };

/** One case, its measurements in the order they were taken. */
export type InstancesRow = { key: InstancesKey; label: string; measurements: InstancesMeasurement[] };

type Case = { key: InstancesKey; label: string; threading: Threading };

const CASES: Case[] = [
  { key: "new", label: "new thread", threading: "new" },
  // Each worker keeps its thread; the proxy sends each turn to the next instance in its turn, so
  // a conversation's turns land on either instance, whichever ran the one before.
  { key: "follow-up", label: "follow-up turn", threading: "follow-up" },
];

type Opts = { concurrency: number; warmupMs: number; windowMs: number };

/** `fn` against a fresh proxy in front of `servers`, whose trees are counted as one; with the requests each server got. */
async function behindProxy<T>(servers: DispatchServer[], target: (server: DispatchServer) => Target, fn: (t: Target) => Promise<T>): Promise<{ result: T; served: number[] }> {
  const proxy = await startProxy(servers.map((s) => s.url));
  try {
    const result = await fn({ ...target(servers[0]!), port: proxy.port, tree: combinedTree(servers.map((s) => s.tree)), proxy: proxy.tree });
    return { result, served: await proxy.close() };
  } catch (err) {
    await proxy.close().catch(() => []);
    throw err;
  }
}

async function measureCase(c: Case, servers: DispatchServer[], target: (server: DispatchServer) => Target, opts: Opts, log: (line: string) => void): Promise<InstancesMeasurement> {
  log(`instances: C=${opts.concurrency}, ${c.label}, ${servers.length === 1 ? "one instance" : `${servers.length} instances`}`);
  const { result, served } = await behindProxy(servers, target, (t) => measureRuns(t, { ...opts, pace: "fast", threading: c.threading }));
  if (result.firstFailure) log(`a run failed: ${result.firstFailure}`);
  return { instances: servers.length, figures: result, served };
}

/**
 * `startFirst` starts the first instance (`npm start`, its embedded PostgreSQL included);
 * `startSecond` another on the first's database.
 */
export async function instancesPhase(p: {
  plan: { warmupMs: number; windowMs: number };
  concurrency: number;
  startFirst: () => Promise<DispatchServer>;
  startSecond: () => Promise<DispatchServer>;
  target: (server: DispatchServer) => Target;
  rows: InstancesRow[];
  log: (line: string) => void;
}): Promise<void> {
  const opts: Opts = { concurrency: p.concurrency, warmupMs: p.plan.warmupMs, windowMs: p.plan.windowMs };
  const first = await p.startFirst();
  try {
    const second = await p.startSecond();
    try {
      const one = [first];
      const two = [first, second];
      // Fresh instances load and compile their routes on their first runs: every case once on each.
      p.log("instances: warming both instances up");
      for (const c of CASES) await behindProxy(two, p.target, (t) => measureRuns(t, { ...opts, pace: "fast", threading: c.threading }));
      const rows = CASES.map((c) => ({ key: c.key, label: `C=${p.concurrency}, ${c.label}`, measurements: [] as InstancesMeasurement[] }));
      for (const order of [[one, two], [two, one]]) {
        for (const [i, c] of CASES.entries()) for (const servers of order) rows[i]!.measurements.push(await measureCase(c, servers, p.target, opts, p.log));
      }
      p.rows.push(...rows);
    } finally {
      await second.stop();
    }
  } finally {
    await first.stop();
  }
}

/** The mean of a figure over the measurements with `instances` instances. */
export function instancesMean(row: InstancesRow, instances: number, f: (x: RunsFigures) => number): number {
  const side = row.measurements.filter((m) => m.instances === instances).map((m) => f(m.figures));
  return side.length ? side.reduce((a, b) => a + b, 0) / side.length : NaN;
}

export function instancesTable(rows: InstancesRow[]): string[] {
  const out = [
    "### Two instances on the same cores, behind one round-robin proxy",
    "",
    "The same build started twice on one machine, both on the first's PostgreSQL, each request sent to the next instance in turn (test/round-robin-proxy.ts in a process of its own). One instance is measured behind the same proxy while the other idles; the measurements run one, two, two, one (both instances warmed alike first). CPU is the whole tree of the instances measured (npm and its launcher, the node servers, PostgreSQL and its backends); the proxy's CPU is apart, not counted in it. The mean rows' ratios are two instances ÷ one.",
    "",
    "| case | instances | runs/s | TTFE p50 / p99 ms | run p50 / p99 ms | CPU ms/run, whole tree | server / PostgreSQL / launcher ms/run | proxy CPU ms/run (apart) | requests per instance | failed | host steal % | load generator CPU % |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const r of rows) {
    for (const { instances, figures: f, served } of r.measurements) {
      const g = f.groupCpuMsPerRun;
      out.push(
        `| ${r.label} | ${instances} | ${n(f.runsPerSec)} | ${n(f.ttfe.p50, 1)} / ${n(f.ttfe.p99, 1)} | ${n(f.total.p50)} / ${n(f.total.p99)} | ${n(f.cpuMsPerRun, 2)} | ${n(g.server, 2)} / ${n(g.postgres, 2)} / ${n(g.wrapper, 2)} | ${n(f.proxyCpuMsPerRun, 2)} | ${served.join(" / ")} | ${f.failed} | ${n(f.stealPct, 1)} | ${n(f.clientCpuPct)} |`,
      );
    }
    const mean = (instances: number) => ({ runs: instancesMean(r, instances, (f) => f.runsPerSec), cpu: instancesMean(r, instances, (f) => f.cpuMsPerRun) });
    const [a, b] = [mean(1), mean(2)];
    const ratio = (x: number, y: number) => (Number.isFinite(x) && y > 0 ? ` (${(x / y).toFixed(2)}×)` : "");
    out.push(`| ${r.label}, mean | 1 | ${n(a.runs)} | | | ${n(a.cpu, 2)} | | | | | | |`, `| ${r.label}, mean | 2 | ${n(b.runs)}${ratio(b.runs, a.runs)} | | | ${n(b.cpu, 2)}${ratio(b.cpu, a.cpu)} | | | | | | |`);
  }
  return out;
}
