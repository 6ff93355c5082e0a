// The benchmark's markdown report: each Dispatch figure next to the limit measured in the same
// run (the bare node:http server; for the Vercel path, a bare Next.js route handler), the memory
// of each process group, and the issue's targets with a verdict (bench/targets.ts).
import type { Footprint } from "./footprint";
import type { HistoryFigures } from "./history";
import { instancesTable, type InstancesRow } from "./instances-phase";
import { notifyTable, type NotifyFigures } from "./notify";
import { HEARTBEAT_MS, LEASE_MS, type RecoveryFigures } from "./recovery";
import { relayTable, type RelayFigures } from "./relay-phase";
import type { RunsFigures } from "./runs-phase";
import type { StreamLevel } from "./streams";
import { n, slope } from "./figures";
import { targets } from "./targets";
import type { Group } from "./tree";

export const RUNS_KEYS = ["c1", "c10", "c50", "c50-follow-up", "c50-ag-ui", "c50-ag-ui-small-state", "c50-ag-ui-state", "c200-paced", "vercel"] as const;
export type RunsKey = (typeof RUNS_KEYS)[number];
/** `durable`: the durable limit (bare + PostgreSQL, persist before publish), measured on the C=50 new-thread case. */
/** `footprint`: what Dispatch's runs of the case wrote to PostgreSQL (bench/footprint.ts). */
export type RunsRow = { key: RunsKey; label: string; dispatch: RunsFigures; limit: RunsFigures; durable?: RunsFigures; footprint?: Footprint };
export type StreamsRow = { kind: "in-flight" | "idle"; dispatch: StreamLevel[]; limit: StreamLevel[] };
export type CliFigures = { median: number; p95: number; calls: number };
export type Report = {
  machine: string;
  /** How the measured Dispatch was started (npm start, or directly by the bench). */
  started: string;
  runs: RunsRow[];
  streams: StreamsRow[];
  history: HistoryFigures[];
  cli: CliFigures | null;
  /** The same action as an MCP client calls it (bench/mcp-call.ts). */
  mcp: CliFigures | null;
  /** An MCP server's read tool as the agent calls it, and directly with the SDK (bench/mcp-tool-call.ts). */
  mcpTool: { direct: CliFigures; dispatch: CliFigures } | null;
  recovery: RecoveryFigures[];
  /** LISTEN/NOTIFY on PostgreSQL alone (bench/notify.ts). */
  notify: NotifyFigures[];
  /** An AG-UI agent's events read directly and through Dispatch's relay (bench/agent-relay.ts). */
  relay: RelayFigures | null;
  /** One instance, then two on the same database, behind a round-robin proxy (bench/instances-phase.ts). */
  instances: InstancesRow[];
};

const ratio = (d: number, l: number) => (Number.isFinite(d) && Number.isFinite(l) && l > 0 ? ` (${(d / l).toFixed(2)}×)` : "");
const both = (d: number, l: number, digits = 0) => `${n(d, digits)}${ratio(d, l)}`;
const mb = (kb: number) => n(kb / 1024);

function runsTable(rows: RunsRow[]): string[] {
  const out = [
    "| run | system | runs/s | events/s | TTFE p50 ms | TTFE p99 ms | run p50 ms | run p99 ms | CPU ms/run, whole tree | server / PostgreSQL / launcher ms/run | peak PSS MB server / PostgreSQL / launcher | peak RSS MB, tree | failed | host steal % | load generator CPU % |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  const groups = (f: RunsFigures) => `${n(f.groupCpuMsPerRun.server, 2)} / ${n(f.groupCpuMsPerRun.postgres, 2)} / ${n(f.groupCpuMsPerRun.wrapper, 2)}`;
  const pss = (f: RunsFigures) => `${mb(f.peakMemory.server.pssKb)} / ${mb(f.peakMemory.postgres.pssKb)} / ${mb(f.peakMemory.wrapper.pssKb)}`;
  // A limit's row: its figures, each followed by its ratio to `base` when one is given.
  const limitRow = (label: string, name: string, l: RunsFigures, b?: RunsFigures) => {
    const v = (f: (x: RunsFigures) => number, digits = 0) => (b ? both(f(l), f(b), digits) : n(f(l), digits));
    return `| ${label} | ${name} | ${v((x) => x.runsPerSec)} | ${v((x) => x.eventsPerSec)} | ${v((x) => x.ttfe.p50, 1)} | ${v((x) => x.ttfe.p99, 1)} | ${v((x) => x.total.p50, 1)} | ${v((x) => x.total.p99, 1)} | ${v((x) => x.cpuMsPerRun, 2)} | ${groups(l)} | ${pss(l)} | ${v((x) => x.peakRssMb)} | ${l.failed} | ${n(l.stealPct, 1)} | ${n(l.clientCpuPct)} |`;
  };
  for (const { key, label, dispatch: d, limit: l, durable } of rows) {
    out.push(limitRow(label, key === "vercel" ? "bare Next.js" : "limit", l));
    if (durable) out.push(limitRow(label, "durable limit (bare + PostgreSQL)", durable, l));
    out.push(
      `| ${label} | Dispatch | ${both(d.runsPerSec, l.runsPerSec)} | ${both(d.eventsPerSec, l.eventsPerSec)} | ${both(d.ttfe.p50, l.ttfe.p50, 1)} | ${both(d.ttfe.p99, l.ttfe.p99, 1)} | ${both(d.total.p50, l.total.p50, 1)} | ${both(d.total.p99, l.total.p99, 1)} | ${both(d.cpuMsPerRun, l.cpuMsPerRun, 2)} | ${groups(d)} | ${pss(d)} | ${both(d.peakRssMb, l.peakRssMb)} | ${d.failed} | ${n(d.stealPct, 1)} | ${n(d.clientCpuPct)} |`,
    );
  }
  return out;
}

function streamsTables(rows: StreamsRow[]): string[] {
  const levels = ["| streams | kind | Dispatch PSS MB: server / PostgreSQL / launcher | Dispatch RSS MB, tree | limit PSS MB |", "| ---: | --- | ---: | ---: | ---: |"];
  const slopes = [
    "| kind | KB per stream (PSS / USS) | server (node) | PostgreSQL | server + PostgreSQL | limit |",
    "| --- | --- | ---: | ---: | ---: | ---: |",
  ];
  for (const row of rows) {
    row.dispatch.forEach((d, i) => {
      const l = row.limit[i];
      const rss = d.memory.server.rssKb + d.memory.postgres.rssKb + d.memory.wrapper.rssKb;
      levels.push(`| ${d.streams} | ${row.kind} | ${mb(d.memory.server.pssKb)} / ${mb(d.memory.postgres.pssKb)} / ${mb(d.memory.wrapper.pssKb)} | ${mb(rss)} | ${l ? mb(l.memory.server.pssKb) : "–"} |`);
    });
    const span = `${row.dispatch[0]?.streams ?? "–"} → ${row.dispatch.at(-1)?.streams ?? "–"}`;
    const s = (levels: StreamLevel[], groups: Group[]) => {
      const v = slope(levels, groups);
      return `${n(v.pss)} / ${n(v.uss)}`;
    };
    slopes.push(`| ${row.kind} | ${span} | ${s(row.dispatch, ["server"])} | ${s(row.dispatch, ["postgres"])} | ${s(row.dispatch, ["server", "postgres"])} | ${s(row.limit, ["server"])} |`);
  }
  return [...levels, "", ...slopes];
}

function historyTable(rows: HistoryFigures[]): string[] {
  const out = ["| server | page | messages | reads | p50 ms | p95 ms | host steal % |", "| --- | --- | ---: | ---: | ---: | ---: | ---: |"];
  for (const h of rows) {
    out.push(
      `| ${h.after} | latest day | ${h.latest.pageMessages} | ${h.latest.reads} | ${n(h.latest.p50, 2)} | ${n(h.latest.p95, 2)} | ${n(h.latest.stealPct, 1)} |`,
      `| ${h.after} | random earlier day | ${h.randomDay.pageMessages} | ${h.randomDay.reads} | ${n(h.randomDay.p50, 2)} | ${n(h.randomDay.p95, 2)} | ${n(h.randomDay.stealPct, 1)} |`,
    );
  }
  return out;
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

export function renderReport(r: Report): string {
  const lines = [`## Dispatch benchmark (${r.machine})`, "", `Runs, streams and /history: Dispatch started by ${r.started}. The Vercel path, project_cli and recovery start the server directly on the same database.`, ""];
  if (r.runs.length) {
    lines.push(
      "### AG-UI runs (POST /api/v1/agent/runs, SSE, keep-alive, 200-token answers)",
      "",
      "Limit: bare node:http + fetch producing the same frames from the same fake model, same machine, same run (for the Vercel path: a bare Next.js route handler under `next start`). Durable limit (C=50, new thread): the same server plus PostgreSQL doing only the minimal persist-before-publish path (bench/durable-server.ts), its ratios to the bare limit; Dispatch's targets against it are in the targets table. Ratios are Dispatch ÷ limit. CPU is the whole process tree's (npm and its launcher, the node server, PostgreSQL and its backends, on the same cores), then per group; PSS counts a shared page once across the processes that share it. Host steal is the share of the machine's CPU time its host took during the window (/proc/stat); the load generator's CPU is this process's, in % of one core.",
      "",
      ...runsTable(r.runs),
      "",
      ...r.runs.flatMap((row) =>
        row.footprint
          ? [`What each Dispatch run of "${row.label}" wrote to PostgreSQL (${row.footprint.runs} runs, warm-up included): ${n(row.footprint.walKbPerRun, 1)} KB of WAL, ${n(row.footprint.logKbPerRun, 1)} KB more event log (table, TOAST, indexes), ${n(row.footprint.batchRowsPerRun, 1)} event-log rows, ${n(row.footprint.messagesPerRun, 1)} messages.`, ""]
          : [],
      ),
    );
  }
  if (r.streams.length) {
    lines.push(
      "### Streams held open (model stalled)",
      "",
      "Memory per process group from /proc/PID/smaps_rollup: PSS (a shared page counted once over its sharers) and USS (Private_Clean + Private_Dirty); RSS counts PostgreSQL's shared buffers once per backend. The slope is taken between the first and the last level.",
      "",
      ...streamsTables(r.streams),
      "",
    );
  }
  if (r.history.length) {
    const h = r.history[0]!;
    lines.push(`### /history on a thread of ${h.messages.toLocaleString("en-US")} messages over 3 years (seeded in ${n(h.seedSeconds, 1)} s)`, "", ...historyTable(r.history), "");
  }
  if (r.cli || r.mcp) {
    const row = (call: string, f: CliFigures) => `| ${call} | ${f.calls} | ${n(f.median, 1)} | ${n(f.p95, 1)} |`;
    lines.push("### One calendar read: project_cli through the child process, and over MCP", "", "| call | calls | median ms | p95 ms |", "| --- | ---: | ---: | ---: |");
    if (r.cli) lines.push(row("project_cli calendar.read (CLI child, tool gateway)", r.cli));
    if (r.mcp) lines.push(row("MCP tools/call calendar_read (SDK client, POST /api/v1/mcp)", r.mcp));
    lines.push("");
  }
  if (r.mcpTool) {
    const row = (call: string, f: CliFigures) => `| ${call} | ${f.calls} | ${n(f.median, 1)} | ${n(f.p95, 1)} |`;
    lines.push(
      "### An MCP server's tool: as the agent calls it, and directly",
      "",
      "| call | calls | median ms | p95 ms |",
      "| --- | ---: | ---: | ---: |",
      row("find_ticket, the SDK's Client on a connected session (the server's own cost)", r.mcpTool.direct),
      row("find_ticket through Dispatch's MCP tool path (schema check, pooled connection, count)", r.mcpTool.dispatch),
      `| what Dispatch adds (median) | | ${n(r.mcpTool.dispatch.median - r.mcpTool.direct.median, 1)} | |`,
      "",
    );
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
  if (r.notify.length) {
    lines.push(
      "### LISTEN/NOTIFY on PostgreSQL alone",
      "",
      "Connections committing one small insert each (a 400-byte row, as an event batch), as fast as they can, with 0, 1 or 10 pg_notify calls in the same statement, while 0-4 other connections LISTEN. Latency: from just before the statement is sent to a listener's receipt. Dispatch sends one notification per run per group commit of its event writer, from one connection per instance at a time.",
      "",
      ...notifyTable(r.notify),
      "",
    );
  }
  if (r.relay) lines.push(...relayTable(r.relay), "");
  if (r.instances.length) lines.push(...instancesTable(r.instances), "");
  lines.push("### Targets", "", ...targets(r), "");
  return lines.join("\n");
}
