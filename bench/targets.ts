// The issues' targets (#28, #45), each as the issue phrases it: a Dispatch figure against the
// limit (bare or durable), the ideal or the other figure measured in the same run, the ratio,
// and whether it is met.
import { PACED_IDEAL_MS } from "./answer";
import { n, slope } from "./figures";
import { instancesMean, type InstancesRow } from "./instances-phase";
import type { Report, RunsKey, RunsRow } from "./report";

type Row = { target: string; measured: string; against: string; ratio: number | null; met: boolean | null };

const x = (v: number | null) => (v === null || !Number.isFinite(v) ? "–" : `${v.toFixed(2)}×`);
const verdict = (ok: boolean | null) => (ok === null ? "not run" : ok ? "yes" : "**no**");
const notRun = (target: string): Row => ({ target, measured: "–", against: "–", ratio: null, met: null });

/** A Dispatch figure over another; met when the ratio is within `bound` (at least, or at most). */
function compare(target: string, d: number, other: number, what: { unit: string; digits: number; against: string; bound: number; atLeast: boolean }): Row {
  if (!Number.isFinite(d) || !Number.isFinite(other) || other <= 0) return notRun(target);
  const r = d / other;
  return {
    target,
    measured: `${n(d, what.digits)} ${what.unit}`,
    against: `${n(other, what.digits)} ${what.unit} (${what.against})`,
    ratio: r,
    met: what.atLeast ? r >= what.bound : r <= what.bound,
  };
}

/** #45: Dispatch against the durable limit (bare + PostgreSQL, persist before publish) measured in the same run. */
function durableRows(c50: RunsRow | undefined): Row[] {
  const d = c50?.dispatch;
  const l = c50?.durable;
  const against = "durable limit";
  if (!d || !l) return [notRun("C=50, new thread (#45): runs/s ≥ 0.85×, CPU per run ≤ 1.3×, TTFE p99 ≤ 1.1× the durable limit")];
  return [
    compare("C=50, new thread (#45): runs/s ≥ 0.85× durable limit", d.runsPerSec, l.runsPerSec, { unit: "runs/s", digits: 0, against, bound: 0.85, atLeast: true }),
    compare("… CPU per run, whole tree incl. PostgreSQL ≤ 1.3× durable limit", d.cpuMsPerRun, l.cpuMsPerRun, { unit: "ms", digits: 2, against, bound: 1.3, atLeast: false }),
    compare("… TTFE p99 ≤ 1.1× durable limit", d.ttfe.p99, l.ttfe.p99, { unit: "ms", digits: 1, against, bound: 1.1, atLeast: false }),
  ];
}

/** #45: two instances on the same cores, behind one proxy, do at least the runs of one behind it. */
function instancesRows(r: Report): Row[] {
  const name = (label: string) => `${label}: two instances (one PostgreSQL, round-robin proxy) runs/s ≥ 1.0× one instance's`;
  const runs = (row: InstancesRow, instances: number) => instancesMean(row, instances, (f) => f.runsPerSec);
  const measured = r.instances.map((i) => compare(name(i.label), runs(i, 2), runs(i, 1), { unit: "runs/s", digits: 0, against: "one instance behind the proxy; means of 2 readings each", bound: 1, atLeast: true }));
  return measured.length ? measured : [notRun(name("C=50, new thread"))];
}

export function targets(r: Report): string[] {
  const row = (key: RunsKey) => r.runs.find((x) => x.key === key);
  const c50 = row("c50");
  const rows: Row[] = [];
  const runsPerSec = { unit: "runs/s", digits: 0, against: "bare limit" };
  const cpu = { unit: "ms", digits: 2, against: "bare limit" };
  if (c50) {
    rows.push(
      compare("C=50, new thread, `npm start` tree: runs/s ≥ 0.40× bare", c50.dispatch.runsPerSec, c50.limit.runsPerSec, { ...runsPerSec, bound: 0.4, atLeast: true }),
      compare("… CPU per run, whole tree incl. PostgreSQL ≤ 3× bare", c50.dispatch.cpuMsPerRun, c50.limit.cpuMsPerRun, { ...cpu, bound: 3, atLeast: false }),
      compare("… TTFE p99 ≤ 1.2× bare", c50.dispatch.ttfe.p99, c50.limit.ttfe.p99, { unit: "ms", digits: 1, against: "bare limit", bound: 1.2, atLeast: false }),
    );
  } else rows.push(notRun("C=50, new thread, `npm start` tree: runs/s ≥ 0.40× bare"));
  rows.push(...durableRows(c50));
  const sameAsNew = (key: RunsKey, name: string) => {
    const other = row(key)?.dispatch;
    const base = c50?.dispatch;
    if (!other || !base) return rows.push(notRun(`${name}: within 10% of the new-thread figure`));
    rows.push(
      compare(`${name}: runs/s ≥ 0.90× new thread`, other.runsPerSec, base.runsPerSec, { ...runsPerSec, against: "new thread", bound: 0.9, atLeast: true }),
      compare(`${name}: CPU per run ≤ 1.10× new thread`, other.cpuMsPerRun, base.cpuMsPerRun, { ...cpu, against: "new thread", bound: 1.1, atLeast: false }),
    );
  };
  sameAsNew("c50-follow-up", "C=50, follow-up turn on an existing thread");
  sameAsNew("c50-ag-ui", "C=50, /api/v1/ag-ui with a 200-message thread resent");
  // #40: shared state keeps the AG-UI case's cost (the state run has one model step more: its 10 patches).
  const plain = row("c50-ag-ui")?.dispatch;
  const stateful = row("c50-ag-ui-state")?.dispatch;
  if (plain && stateful) {
    rows.push(
      compare("C=50, /api/v1/ag-ui, 20 KB state + 10 deltas: runs/s ≥ 0.90× without", stateful.runsPerSec, plain.runsPerSec, { ...runsPerSec, against: "without state", bound: 0.9, atLeast: true }),
      compare("C=50, /api/v1/ag-ui, 20 KB state + 10 deltas: CPU per run ≤ 1.10× without", stateful.cpuMsPerRun, plain.cpuMsPerRun, { ...cpu, against: "without state", bound: 1.1, atLeast: false }),
    );
  } else rows.push(notRun("C=50, /api/v1/ag-ui, 20 KB state + 10 deltas: within 10% of the same without state"));
  const paced = row("c200-paced");
  const ideal = `ideal ${(PACED_IDEAL_MS / 1000).toFixed(1)} s`;
  if (paced) {
    const limit = (p: number) => `; bare limit ${n(p)} ms`;
    const p50 = compare("C=200 paced 20 ms/token: run p50 ≤ 1.03× ideal", paced.dispatch.total.p50, PACED_IDEAL_MS, { unit: "ms", digits: 0, against: ideal, bound: 1.03, atLeast: false });
    const p99 = compare("C=200 paced 20 ms/token: run p99 ≤ 1.10× ideal", paced.dispatch.total.p99, PACED_IDEAL_MS, { unit: "ms", digits: 0, against: ideal, bound: 1.1, atLeast: false });
    rows.push({ ...p50, against: p50.against + limit(paced.limit.total.p50) }, { ...p99, against: p99.against + limit(paced.limit.total.p99) });
  } else rows.push(notRun("C=200 paced 20 ms/token: run p50 ≤ 1.03×, p99 ≤ 1.10× ideal"));
  const inflight = r.streams.find((s) => s.kind === "in-flight");
  if (inflight) {
    const both = slope(inflight.dispatch, ["server", "postgres"]);
    const node = slope(inflight.dispatch, ["server"]);
    const db = slope(inflight.dispatch, ["postgres"]);
    const limit = slope(inflight.limit, ["server"]);
    const worst = Math.max(both.pss, both.uss);
    rows.push({
      target: "Memory per in-flight stream, server + PostgreSQL ≤ 90 KB (PSS and USS)",
      measured: `${n(both.pss)} / ${n(both.uss)} KB (node ${n(node.pss)} / ${n(node.uss)}, PostgreSQL ${n(db.pss)} / ${n(db.uss)})`,
      against: `bare limit ${n(limit.pss)} / ${n(limit.uss)} KB`,
      ratio: Number.isFinite(limit.pss) && limit.pss > 0 ? both.pss / limit.pss : null,
      met: Number.isFinite(worst) ? worst <= 90 : null,
    });
  } else rows.push(notRun("Memory per in-flight stream, server + PostgreSQL ≤ 90 KB"));
  // The launcher's memory does not grow with load; its peak over the headline case is read.
  const launcher = c50?.dispatch.peakMemory.wrapper;
  if (launcher && Number.isFinite(launcher.pssKb)) {
    const serverDb = c50.dispatch.peakMemory.server.pssKb + c50.dispatch.peakMemory.postgres.pssKb;
    rows.push({
      target: "`npm start` tree beyond the server and the database ≤ 50 MB",
      measured: `${n(launcher.pssKb / 1024)} MB PSS (${n(launcher.ussKb / 1024)} USS)`,
      against: `server + PostgreSQL ${n(serverDb / 1024)} MB PSS`,
      ratio: null,
      met: launcher.pssKb / 1024 <= 50,
    });
  } else rows.push(notRun("`npm start` tree beyond the server and the database ≤ 50 MB"));
  if (r.history.length) {
    for (const h of r.history) {
      const p95 = Math.max(h.latest.p95, h.randomDay.p95);
      rows.push({ target: `/history p95 ≤ 6 ms, 1M-message thread (${h.after})`, measured: `${n(p95, 1)} ms (p50 ${n(Math.max(h.latest.p50, h.randomDay.p50), 1)})`, against: `host steal ${n(Math.max(h.latest.stealPct, h.randomDay.stealPct), 1)} %`, ratio: null, met: p95 <= 6 });
    }
  } else rows.push(notRun("/history p95 ≤ 6 ms, 1M-message thread, also after idling"));
  rows.push(...instancesRows(r));
  const vercel = row("vercel");
  rows.push(
    vercel
      ? compare("Vercel path (`next start`), C=50 new thread: runs/s ≥ 0.8× a bare Next.js route handler", vercel.dispatch.runsPerSec, vercel.limit.runsPerSec, { ...runsPerSec, against: "bare Next.js", bound: 0.8, atLeast: true })
      : notRun("Vercel path (`next start`) at C=50 ≥ 0.8× a bare Next.js route handler"),
  );
  return [
    "| target | Dispatch | against (same run) | ratio | met |",
    "| --- | ---: | ---: | ---: | :---: |",
    ...rows.map((t) => `| ${t.target} | ${t.measured} | ${t.against} | ${x(t.ratio)} | ${verdict(t.met)} |`),
  ];
}
