// Scaling out on the same cores (#45): one Dispatch instance, then two instances of the same
// build sharing its PostgreSQL (the second started by `npm start` with the first's DATABASE_URL
// and AUTH_SECRET, as an operator adds one), each time behind the same round-robin proxy in a
// process of its own. Both measurements go through the proxy, so the only difference is the
// second instance; the proxy's CPU is read apart and not counted against Dispatch.
import { n } from "./figures";
import { measureRuns, type RunsFigures, type Target, type Threading } from "./runs-phase";
import { startProxy, type DispatchServer } from "./servers";
import { combinedTree } from "./tree";

export type InstancesKey = "new" | "follow-up";

/** One case measured behind the proxy with one instance, then with two; `served`: requests each instance got (warm-up included). */
export type InstancesRow = { key: InstancesKey; label: string; one: RunsFigures; two: RunsFigures; served: { one: number[]; two: number[] } };

type Case = { key: InstancesKey; label: string; threading: Threading };

const CASES: Case[] = [
  { key: "new", label: "new thread", threading: "new" },
  // Each worker keeps its thread; the proxy sends each turn to the next instance in its turn, so
  // a conversation's turns land on either instance, whichever ran the one before.
  { key: "follow-up", label: "follow-up turn", threading: "follow-up" },
];

type Measured = { figures: RunsFigures; served: number[] };

/** Every case behind a fresh proxy in front of `servers`; the servers' trees are counted as one. */
async function measureBehindProxy(
  servers: DispatchServer[],
  target: (server: DispatchServer) => Target,
  opts: { concurrency: number; warmupMs: number; windowMs: number },
  log: (line: string) => void,
): Promise<Map<InstancesKey, Measured>> {
  const out = new Map<InstancesKey, Measured>();
  const behind = async <T>(fn: (t: Target) => Promise<T>): Promise<{ result: T; served: number[] }> => {
    const proxy = await startProxy(servers.map((s) => s.url));
    try {
      const result = await fn({ ...target(servers[0]!), port: proxy.port, tree: combinedTree(servers.map((s) => s.tree)), proxy: proxy.tree });
      return { result, served: await proxy.close() };
    } catch (err) {
      await proxy.close().catch(() => []);
      throw err;
    }
  };
  // A fresh instance's first runs load and compile its routes.
  await behind((t) => measureRuns(t, { concurrency: 5, warmupMs: 0, windowMs: 2_000, pace: "fast" }));
  for (const c of CASES) {
    log(`instances: C=${opts.concurrency}, ${c.label}, ${servers.length === 1 ? "one instance" : `${servers.length} instances`}`);
    const { result, served } = await behind((t) => measureRuns(t, { ...opts, pace: "fast", threading: c.threading }));
    if (result.firstFailure) log(`a run failed: ${result.firstFailure}`);
    out.set(c.key, { figures: result, served });
  }
  return out;
}

/**
 * `startFirst` starts the first instance (`npm start`, its embedded PostgreSQL included);
 * `startSecond` another on the first's database once the first is measured alone.
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
  const opts = { concurrency: p.concurrency, warmupMs: p.plan.warmupMs, windowMs: p.plan.windowMs };
  const first = await p.startFirst();
  try {
    const one = await measureBehindProxy([first], p.target, opts, p.log);
    p.log("instances: a second instance on the first's database");
    const second = await p.startSecond();
    try {
      const two = await measureBehindProxy([first, second], p.target, opts, p.log);
      for (const c of CASES) {
        const a = one.get(c.key)!;
        const b = two.get(c.key)!;
        p.rows.push({ key: c.key, label: `C=${p.concurrency}, ${c.label}`, one: a.figures, two: b.figures, served: { one: a.served, two: b.served } });
      }
    } finally {
      await second.stop();
    }
  } finally {
    await first.stop();
  }
}

export function instancesTable(rows: InstancesRow[]): string[] {
  const out = [
    "### Two instances on the same cores, behind one round-robin proxy",
    "",
    "The same build started twice on one machine, both on the first's PostgreSQL, each request sent to the next instance in turn (test/round-robin-proxy.ts in a process of its own); one instance is measured behind the same proxy first. CPU is the whole tree of every instance (npm and its launcher, the node servers, PostgreSQL and its backends); the proxy's CPU is apart, not counted in it. Ratios are two instances ÷ one.",
    "",
    "| case | instances | runs/s | TTFE p50 / p99 ms | run p50 / p99 ms | CPU ms/run, whole tree | server / PostgreSQL / launcher ms/run | proxy CPU ms/run (apart) | requests per instance | failed | host steal % | load generator CPU % |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  const ratio = (v: number, base?: number) => (base && Number.isFinite(v) && base > 0 ? ` (${(v / base).toFixed(2)}×)` : "");
  const line = (label: string, count: number, f: RunsFigures, served: number[], base?: RunsFigures) => {
    const g = f.groupCpuMsPerRun;
    return `| ${label} | ${count} | ${n(f.runsPerSec)}${ratio(f.runsPerSec, base?.runsPerSec)} | ${n(f.ttfe.p50, 1)} / ${n(f.ttfe.p99, 1)} | ${n(f.total.p50)} / ${n(f.total.p99)} | ${n(f.cpuMsPerRun, 2)}${ratio(f.cpuMsPerRun, base?.cpuMsPerRun)} | ${n(g.server, 2)} / ${n(g.postgres, 2)} / ${n(g.wrapper, 2)} | ${n(f.proxyCpuMsPerRun, 2)} | ${served.join(" / ")} | ${f.failed} | ${n(f.stealPct, 1)} | ${n(f.clientCpuPct)} |`;
  };
  for (const r of rows) out.push(line(r.label, 1, r.one, r.served.one), line(r.label, 2, r.two, r.served.two, r.one));
  return out;
}
