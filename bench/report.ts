// The benchmark's markdown report: each Dispatch figure next to the bare node:http limit
// measured in the same run, and the issue's targets with a verdict.
import type { HistoryFigures } from "./history";
import { HEARTBEAT_MS, LEASE_MS, type RecoveryFigures } from "./recovery";
import type { RunsFigures } from "./runs-phase";
import type { StreamLevel } from "./streams";

export type RunsRow = { label: string; dispatch: RunsFigures; limit: RunsFigures };
export type StreamsRow = { kind: "in-flight" | "idle"; dispatch: StreamLevel[]; limit: StreamLevel[] };
export type CliFigures = { median: number; p95: number; calls: number };
export type Report = {
  machine: string;
  runs: RunsRow[];
  streams: StreamsRow[];
  history: HistoryFigures | null;
  cli: CliFigures | null;
  recovery: RecoveryFigures[];
};

const n = (v: number, digits = 0) => (Number.isFinite(v) ? v.toFixed(digits) : "–");
const ratio = (d: number, l: number) => (Number.isFinite(d) && Number.isFinite(l) && l > 0 ? ` (${(d / l).toFixed(2)}×)` : "");
const both = (d: number, l: number, digits = 0) => `${n(d, digits)}${ratio(d, l)}`;

function runsTable(rows: RunsRow[]): string[] {
  const out = [
    "| run | system | runs/s | events/s | TTFE p50 ms | TTFE p99 ms | run p50 ms | run p99 ms | server CPU ms/run | db CPU ms/run | peak RSS MB | failed | host steal % |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const { label, dispatch: d, limit: l } of rows) {
    out.push(
      `| ${label} | limit | ${n(l.runsPerSec)} | ${n(l.eventsPerSec)} | ${n(l.ttfe.p50, 1)} | ${n(l.ttfe.p99, 1)} | ${n(l.total.p50, 1)} | ${n(l.total.p99, 1)} | ${n(l.cpuMsPerRun, 2)} | – | ${n(l.peakRssMb)} | ${l.failed} | ${n(l.stealPct, 1)} |`,
      `| ${label} | Dispatch | ${both(d.runsPerSec, l.runsPerSec)} | ${both(d.eventsPerSec, l.eventsPerSec)} | ${both(d.ttfe.p50, l.ttfe.p50, 1)} | ${both(d.ttfe.p99, l.ttfe.p99, 1)} | ${both(d.total.p50, l.total.p50, 1)} | ${both(d.total.p99, l.total.p99, 1)} | ${both(d.cpuMsPerRun, l.cpuMsPerRun, 2)} | ${n(d.dbCpuMsPerRun, 2)} | ${both(d.peakRssMb, l.peakRssMb)} | ${d.failed} | ${n(d.stealPct, 1)} |`,
    );
  }
  return out;
}

function streamsTable(rows: StreamsRow[]): string[] {
  const out = ["| streams | kind | Dispatch RSS MB | Dispatch KB/stream | limit KB/stream |", "| ---: | --- | ---: | ---: | ---: |"];
  for (const row of rows) {
    row.dispatch.forEach((d, i) => {
      const l = row.limit[i];
      out.push(`| ${d.streams} | ${row.kind} | ${n(d.rssMb)} | ${both(d.kbPerStream, l?.kbPerStream ?? NaN)} | ${n(l?.kbPerStream ?? NaN)} |`);
    });
  }
  return out;
}

/** 10,000 idle streams, from the largest level measured: the server's memory then plus the cost per stream. */
function idleAt10k(rows: StreamsRow[]): number {
  const idle = rows.find((r) => r.kind === "idle")?.dispatch;
  if (!idle?.length) return NaN;
  const last = idle[idle.length - 1]!;
  const baseMb = last.rssMb - (last.kbPerStream * last.streams) / 1024;
  return baseMb + (last.kbPerStream * 10_000) / 1024;
}

function recoveryTable(rows: RecoveryFigures[]): string[] {
  const out = [
    "| signal to instance B | trials (failed) | → first event of the new executor p50 / p95 ms | of which after the lease ran out p50 / p95 ms | → run completed p50 / p95 ms | → B exited p50 / p95 ms |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const r of rows) {
    const killed = r.signal === "SIGKILL";
    out.push(
      `| ${killed ? "kill -9" : "SIGTERM"} | ${r.trials.length + r.failures.length} (${r.failures.length}) | ${n(r.toNewExecutor.p50)} / ${n(r.toNewExecutor.p95)} | ${killed ? `${n(r.pickup.p50)} / ${n(r.pickup.p95)}` : "– (handed back)"} | ${n(r.toCompleted.p50)} / ${n(r.toCompleted.p95)} | ${n(r.exit.p50)} / ${n(r.exit.p95)} |`,
    );
  }
  const failures = rows.flatMap((r) => r.failures.map((f) => `- ${r.signal}: ${f}`));
  return failures.length ? [...out, "", "Trials that did not end with one whole, completed run:", "", ...failures] : out;
}

function targets(r: Report): string[] {
  const c50 = r.runs.find((x) => x.label === "C=50")?.dispatch;
  const inflight = r.streams.find((s) => s.kind === "in-flight")?.dispatch.at(-1);
  const idle10k = idleAt10k(r.streams);
  const rows: [string, string, boolean | null][] = [
    ["C=50 throughput ≥ 200 runs/s", c50 ? n(c50.runsPerSec) : "–", c50 ? c50.runsPerSec >= 200 : null],
    ["server CPU ≤ 6 ms/run (C=50)", c50 ? n(c50.cpuMsPerRun, 2) : "–", c50 ? c50.cpuMsPerRun <= 6 : null],
    ["TTFE p99 ≤ 100 ms (C=50)", c50 ? n(c50.ttfe.p99, 1) : "–", c50 ? c50.ttfe.p99 <= 100 : null],
    ["≤ 150 KB per in-flight stream", inflight ? n(inflight.kbPerStream) : "–", inflight ? inflight.kbPerStream <= 150 : null],
    ["10,000 idle streams < 2 GiB (extrapolated)", Number.isFinite(idle10k) ? `${n(idle10k)} MB` : "–", Number.isFinite(idle10k) ? idle10k < 2048 : null],
    ["/history p95 ≤ 10 ms (1M-message thread)", r.history ? n(Math.max(r.history.latest.p95, r.history.randomDay.p95), 1) : "–", r.history ? Math.max(r.history.latest.p95, r.history.randomDay.p95) <= 10 : null],
    ["project_cli child call ≤ 60 ms median", r.cli ? n(r.cli.median, 1) : "–", r.cli ? r.cli.median <= 60 : null],
  ];
  return [
    "| target | measured | met |",
    "| --- | ---: | :---: |",
    ...rows.map(([t, m, ok]) => `| ${t} | ${m} | ${ok === null ? "not run" : ok ? "yes" : "**no**"} |`),
  ];
}

export function renderReport(r: Report): string {
  const lines = [`## Dispatch benchmark (${r.machine})`, ""];
  if (r.runs.length) {
    lines.push(
      "### AG-UI runs (POST /api/v1/agent/runs, SSE, keep-alive, 200-token answers)",
      "",
      "Limit: bare node:http + fetch producing the same frames from the same fake model, same machine, same run. Ratios are Dispatch ÷ limit. Server CPU is the server process tree's; db CPU is PostgreSQL's, on the same cores. Host steal is the share of the machine's CPU time its host took during the window (/proc/stat).",
      "",
      ...runsTable(r.runs),
      "",
    );
  }
  if (r.streams.length) lines.push("### Streams held open (model stalled)", "", ...streamsTable(r.streams), "");
  if (r.history) {
    const h = r.history;
    lines.push(
      `### /history on a thread of ${h.messages.toLocaleString("en-US")} messages over 3 years (seeded in ${n(h.seedSeconds, 1)} s)`,
      "",
      "| page | messages | reads | p50 ms | p95 ms | host steal % |",
      "| --- | ---: | ---: | ---: | ---: | ---: |",
      `| latest day | ${h.latest.pageMessages} | ${h.latest.reads} | ${n(h.latest.p50, 2)} | ${n(h.latest.p95, 2)} | ${n(h.latest.stealPct, 1)} |`,
      `| random earlier day | ${h.randomDay.pageMessages} | ${h.randomDay.reads} | ${n(h.randomDay.p50, 2)} | ${n(h.randomDay.p95, 2)} | ${n(h.randomDay.stealPct, 1)} |`,
      "",
    );
  }
  if (r.cli) {
    lines.push("### project_cli through the child process", "", "| call | calls | median ms | p95 ms |", "| --- | ---: | ---: | ---: |", `| calendar.read | ${r.cli.calls} | ${n(r.cli.median, 1)} | ${n(r.cli.p95, 1)} |`, "");
  }
  if (r.recovery.length) {
    lines.push(
      "### Durable runs: a run's instance stops mid-answer (20 ms/token), another goes on with it",
      "",
      `A fresh instance B streams each run; a follower on instance A (\`GET …/events\`) times what it receives after B is signalled. After kill -9 the run waits out its lease, ${LEASE_MS / 1000} s from B's last heartbeat (one every ${HEARTBEAT_MS / 1000} s), then for the next sweep on A (every ${HEARTBEAT_MS / 1000} s), the claim and the log's replay: recovery = what was left of the lease at the kill + pickup (the column "after the lease ran out"). B is killed within a second of its run's start, right after the heartbeat that start wrote, so nearly the whole lease is left; a crash later in a run leaves up to ${HEARTBEAT_MS / 1000} s less. On SIGTERM, B hands the run back and A takes it over at once. The run then answers again in full (200 tokens, ~4 s).`,
      "",
      ...recoveryTable(r.recovery),
      "",
    );
  }
  lines.push("### Targets", "", ...targets(r), "");
  return lines.join("\n");
}
