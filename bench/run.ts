// `npm run bench [-- --quick] [-- --only runs,instances,streams,history,vercel,cli,mcp,relay,recovery,notify] [-- --cases c50,c50-ag-ui,…] [-- --profile DIR]`
// Measures the production build (NEXT_DIST_DIR, default .next) started as `npm start` starts it
// (its own embedded PostgreSQL under a scratch DATA_DIR), with a local fake model, next to a
// bare node:http server doing the same protocol work, and prints a markdown report. Loopback
// only; every process it starts is stopped when it ends, fails or is interrupted.
import path from "node:path";
import os from "node:os";
import { parseArgs } from "node:util";
import { clusterPid, createBenchUser, externalDatabase, openDatabase, scratchDir } from "./database";
import { measureHistory, seedHistory, type HistoryFigures } from "./history";
import { instancesPhase } from "./instances-phase";
import { measureMcpCalls } from "./mcp-call";
import { measureNotify } from "./notify";
import { percentile } from "./load";
import { buildNextLimit } from "./next-limit";
import { onCleanup, runScript, stopAll } from "./processes";
import { renderReport, RUNS_KEYS, type CliFigures, type Report } from "./report";
import { measureRecovery } from "./recovery";
import { RELAY_ENV, relayPhase } from "./relay-phase";
import { seedConversations } from "./conversation";
import { runsPhase, vercelPhase } from "./runs-cases";
import { assertBuilt, dispatchEnv, distDir, npmStartDatabase, startBaseline, startDispatch, startDurable, startFakeModel, startNpmStart, type DispatchEnv, type DispatchServer, type MeasuredServer, type NpmStack } from "./servers";
import { streamsPhase, type Started } from "./streams-phase";
import type { Target } from "./runs-phase";

const PHASES = ["runs", "instances", "streams", "history", "vercel", "cli", "mcp", "relay", "recovery", "notify"] as const;
type Phase = (typeof PHASES)[number];

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    profile: { type: "string" },
    // The runs phase's cases by key (bench/report.ts' RunsKey), all when absent.
    cases: { type: "string" },
  },
});
const quick = values.quick!;
const only = new Set<Phase>(values.only ? (values.only.split(",") as Phase[]) : PHASES);
for (const p of only) if (!PHASES.includes(p)) throw new Error(`--only takes ${PHASES.join(",")}; got ${p}`);
const cases = values.cases ? new Set(values.cases.split(",")) : undefined;
for (const c of cases ?? []) if (!(RUNS_KEYS as readonly string[]).includes(c)) throw new Error(`--cases takes ${RUNS_KEYS.join(",")}; got ${c}`);

export type Plan = typeof plan;
const plan = {
  quick,
  warmupMs: quick ? 1_500 : 3_000,
  windowMs: quick ? 3_000 : 10_000,
  // Paced runs last ~4 s: the warm-up lets every worker reach its steady state first.
  pacedWarmupMs: 5_000,
  pacedWindowMs: quick ? 8_000 : 20_000,
  pacedConcurrency: 200,
  // The slope is read between the first and the last level (the issue's 500 → 4000).
  streamLevels: quick ? [500, 1_000] : [500, 1_000, 2_000, 4_000],
  historyMessages: 1_000_000,
  // Each read takes a few ms: 200 were over in a second, so one stall of this shared machine
  // decided the p95 (5 to 15 ms for the same build minutes apart). 1,000 take ~5 s.
  historyRequests: quick ? 100 : 1_000,
  // The second /history reading waits this long with the server idle (V8 shrinks an idle heap).
  historyIdleMs: quick ? 20_000 : 60_000,
  cliCalls: quick ? 15 : 60,
  // The relay phase: runs of an AG-UI agent's answer at each of two sizes (content events).
  relayRuns: quick ? 6 : 20,
  relayEvents: [200, 2_000] as [number, number],
  // The AG-UI door's resent-history case: one seeded thread per worker.
  resentMessages: 200,
  // Each trial waits out the lease of a run whose instance died, on a freshly started instance.
  recoveryTrials: quick ? 3 : 8,
  // LISTEN/NOTIFY on its own: a few writers, then more connections than the server's pool holds.
  notifyWriters: quick ? [8] : [4, 32],
  notifyWarmupMs: quick ? 500 : 1_000,
  notifyWindowMs: quick ? 2_000 : 5_000,
};

// Ports in 3300-3399 when free, so parallel work on this machine can keep clear of them.
// BENCH_PORT_BASE moves them all, for two benches on one machine.
const base = Number(process.env.BENCH_PORT_BASE ?? 3300);
if (!Number.isInteger(base) || base < 1024 || base > 65_530) throw new Error(`BENCH_PORT_BASE takes a port from 1024 to 65530 (it uses that one and the next four); got ${process.env.BENCH_PORT_BASE}`);
const PORTS = { dispatch: base, limit: base + 1, model: base + 2, second: base + 3, durable: base + 4 };

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

const dispatchTarget = (apiKey: string) => (server: MeasuredServer): Target => ({ port: server.port, tree: server.tree, path: "/api/v1/agent/runs", headers: { authorization: `Bearer ${apiKey}` } });
const limitTarget = (server: MeasuredServer): Target => ({ port: server.port, tree: server.tree, path: "/runs", headers: {} });

async function cliPhase(e: DispatchEnv, userId: string): Promise<CliFigures> {
  const out = await runScript("cli-call.ts", ["--user", userId, "--calls", String(plan.cliCalls)], { env: dispatchEnv(e), conditions: ["react-server"], timeoutMs: 120_000 });
  const times = (JSON.parse(out.trim().split("\n").at(-1)!) as number[]).sort((a, b) => a - b);
  return { median: percentile(times, 50), p95: percentile(times, 95), calls: times.length };
}

async function mcpToolPhase(e: DispatchEnv, userId: string): Promise<{ direct: CliFigures; dispatch: CliFigures }> {
  // The tickets server listens on loopback: allowed here as a developer's RUNNER_ALLOWED_HOSTS would.
  const out = await runScript("mcp-tool-call.ts", ["--user", userId, "--calls", String(plan.cliCalls)], { env: { ...dispatchEnv(e), RUNNER_ALLOWED_HOSTS: "127.0.0.1" }, conditions: ["react-server"], timeoutMs: 120_000 });
  const times = JSON.parse(out.trim().split("\n").at(-1)!) as { direct: number[]; dispatch: number[] };
  const figures = (list: number[]): CliFigures => {
    const sorted = [...list].sort((a, b) => a - b);
    return { median: percentile(sorted, 50), p95: percentile(sorted, 95), calls: sorted.length };
  };
  return { direct: figures(times.direct), dispatch: figures(times.dispatch) };
}

async function main(): Promise<void> {
  assertBuilt();
  // --profile needs the server's own node flags: it then runs the server directly, not through npm.
  const direct = Boolean(values.profile) || process.env.BENCH_NEXT_START === "1";
  const started = direct ? `the bench, without npm (${process.env.BENCH_NEXT_START === "1" ? "`next start`" : "scripts/start-server.mjs"})` : "`npm start`";
  log(`${quick ? "quick" : "full"} run of ${[...only].join(", ")} against ${distDir()}/, Dispatch started by ${started}`);
  const model = await startFakeModel(PORTS.model);
  onCleanup(() => model.stop());
  const stack: NpmStack = { dataDir: path.join(scratchDir(), "data"), modelUrl: `${model.url}/v1`, databaseUrl: await externalDatabase() };
  if (only.has("vercel")) await buildNextLimit(log);

  // The first `npm start` creates the cluster, migrates and seeds the first admin; the bench's
  // user, its API key and the seeded threads are made against that database, then it stops: the
  // measured servers start fresh. Seeded while a server waited (~40 s), the long thread was read
  // by a server whose heap V8 had shrunk while it idled (p95 11-16 ms against 6-8).
  log("first npm start (creates the database)");
  const boot = await startNpmStart(PORTS.dispatch, stack);
  const { databaseUrl, authSecret } = npmStartDatabase(stack);
  const e: DispatchEnv = { databaseUrl, authSecret, dataDir: stack.dataDir, modelUrl: stack.modelUrl, dbPid: null };
  const { userId, apiKey } = await createBenchUser(dispatchEnv(e));
  const report: Report = { machine: `${os.cpus().length} cores, ${os.cpus()[0]?.model.trim() ?? "cpu"}, Node ${process.version}`, started, runs: [], streams: [], history: [], cli: null, mcp: null, mcpTool: null, recovery: [], notify: [], relay: null, instances: [] };

  // A phase that fails is reported and skipped; the others still run and print.
  const phase = async <T>(name: string, fn: () => Promise<T>): Promise<T | null> => {
    try {
      return await fn();
    } catch (err) {
      process.exitCode = 1;
      log(`${name} failed: ${err instanceof Error ? err.message : String(err)}`);
      return null;
    }
  };
  const thread = only.has("history")
    ? await phase("history", () => {
        log(`history: seeding ${plan.historyMessages.toLocaleString("en-US")} messages`);
        return seedHistory(databaseUrl, userId, plan.historyMessages);
      })
    : null;
  const conversations = only.has("runs") ? await seedConversations(databaseUrl, userId, { threads: 50, messages: plan.resentMessages }) : [];
  await boot.stop();

  // The database the directly started servers use: npm start's own, run by the bench meanwhile.
  const withDatabase = async <T>(fn: (e: DispatchEnv) => Promise<T>): Promise<T> => {
    const db = await openDatabase(stack.dataDir, stack.databaseUrl);
    try {
      return await fn({ ...e, databaseUrl: db.url, dbPid: db.pid });
    } finally {
      await db.stop();
    }
  };
  const profile = values.profile ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(values.profile)}`] : undefined;
  /** Dispatch as configured for runs, history and streams; `stopDb` ends the database a direct start opened. */
  const startMeasured = async (): Promise<Started & { stopDb: () => Promise<void> }> => {
    if (!direct) {
      const server = await startNpmStart(PORTS.dispatch, stack);
      return { server, databaseUrl: npmStartDatabase(stack).databaseUrl, stopDb: async () => {} };
    }
    const db = await openDatabase(stack.dataDir, stack.databaseUrl);
    const server: DispatchServer = await startDispatch(PORTS.dispatch, { ...e, databaseUrl: db.url, dbPid: db.pid }, { nodeArgs: profile });
    return { server, databaseUrl: db.url, stopDb: db.stop };
  };
  const startLimit = () => startBaseline(PORTS.limit, stack.modelUrl);

  if (only.has("runs") || thread) {
    const d = await startMeasured();
    if (only.has("runs")) {
      await phase("runs", async () => {
        const limit = await startLimit();
        // The durable limit writes to Dispatch's PostgreSQL (its own schema), whose every process its tree counts.
        const durable = await startDurable(PORTS.durable, stack.modelUrl, { url: d.databaseUrl, pid: clusterPid(stack.dataDir, stack.databaseUrl) }).catch(async (err: unknown) => {
          await limit.stop();
          throw err;
        });
        try {
          await runsPhase({ plan, dispatch: dispatchTarget(apiKey)(d.server), limit: limitTarget(limit), durable: limitTarget(durable), database: d.databaseUrl, conversations, rows: report.runs, log, cases });
        } finally {
          await durable.stop();
          await limit.stop();
        }
      });
    }
    if (thread) {
      await phase("history", async () => {
        const read = async (after: string) => {
          log(`history: reading pages (${after})`);
          const timings = await measureHistory({ port: d.server.port, apiKey, threadId: thread.threadId, requests: plan.historyRequests });
          report.history.push({ after, messages: plan.historyMessages, seedSeconds: thread.seedSeconds, ...timings } satisfies HistoryFigures);
        };
        await read(only.has("runs") ? "after the runs" : "a fresh server");
        log(`history: the server idles ${plan.historyIdleMs / 1000} s`);
        await new Promise((r) => setTimeout(r, plan.historyIdleMs));
        await read(`after ${plan.historyIdleMs / 1000} s idle`);
      });
    }
    await d.server.stop();
    await d.stopDb();
  }
  if (only.has("instances")) {
    // Always `npm start`, as an operator adds an instance: the second on the first's database and secret, with a DATA_DIR of its own.
    await phase("instances", () =>
      instancesPhase({
        plan,
        concurrency: 50,
        startFirst: () => startNpmStart(PORTS.dispatch, stack),
        startSecond: () => startNpmStart(PORTS.second, { ...stack, dataDir: path.join(scratchDir(), "data"), databaseUrl }, { AUTH_SECRET: authSecret }),
        target: dispatchTarget(apiKey),
        rows: report.instances,
        log,
      }),
    );
  }
  if (only.has("vercel")) {
    await phase("vercel", () =>
      withDatabase(async (db) => {
        const server = await startDispatch(PORTS.dispatch, db, { next: true, nodeArgs: profile });
        try {
          await vercelPhase({ plan, dispatch: dispatchTarget(apiKey)(server), modelUrl: stack.modelUrl, port: PORTS.limit, rows: report.runs, log });
        } finally {
          await server.stop();
        }
      }),
    );
  }
  if (only.has("cli")) {
    await phase("cli", () =>
      withDatabase(async (db) => {
        log("project_cli calls");
        report.cli = await cliPhase(db, userId);
      }),
    );
  }
  if (only.has("mcp")) {
    await phase("mcp", () =>
      withDatabase(async (db) => {
        const server = await startDispatch(PORTS.dispatch, db);
        try {
          log("MCP tool calls (POST /api/v1/mcp)");
          report.mcp = await measureMcpCalls({ port: server.port, apiKey, calls: plan.cliCalls });
        } finally {
          await server.stop();
        }
        log("an MCP server's tool as the agent calls it, and directly");
        report.mcpTool = await mcpToolPhase(db, userId);
      }),
    );
  }
  if (only.has("relay")) {
    await phase("relay", () =>
      withDatabase(async (db) => {
        const server = await startDispatch(PORTS.dispatch, db, { env: RELAY_ENV });
        try {
          log(`an AG-UI agent's answers of ${plan.relayEvents.join(" and ")} events, directly and through Dispatch`);
          report.relay = await relayPhase(db, server, { runs: plan.relayRuns, sizes: plan.relayEvents });
        } finally {
          await server.stop();
        }
      }),
    );
  }
  if (only.has("streams")) {
    await phase("streams", () =>
      streamsPhase(
        {
          levels: plan.streamLevels,
          startLimit,
          startDispatch: async () => {
            const started = await startMeasured();
            const stop = started.server.stop;
            return { ...started, server: { ...started.server, stop: () => stop().then(started.stopDb) } };
          },
          target: dispatchTarget(apiKey),
          limitTarget,
          model,
          log,
        },
        report.streams,
      ),
    );
  }
  if (only.has("recovery")) {
    await phase("recovery", () =>
      withDatabase(async (db) => {
        const survivor = await startDispatch(PORTS.dispatch, db);
        try {
          for (const signal of ["SIGKILL", "SIGTERM"] as const) {
            log(`recovery: ${plan.recoveryTrials} runs whose instance gets ${signal}`);
            const figures = await measureRecovery({ e: db, survivor, apiKey, port: PORTS.second, signal, trials: plan.recoveryTrials, log });
            report.recovery.push(figures);
            if (figures.failures.length) process.exitCode = 1;
          }
        } finally {
          await survivor.stop();
        }
      }),
    );
  }

  if (only.has("notify")) {
    await phase("notify", () =>
      withDatabase(async (db) => {
        report.notify = await measureNotify({ url: db.databaseUrl, pgPid: db.dbPid, writerCounts: plan.notifyWriters, warmupMs: plan.notifyWarmupMs, windowMs: plan.notifyWindowMs, log });
      }),
    );
  }

  process.stdout.write(`${renderReport(report)}\n`);
}

main()
  .catch((err: unknown) => {
    process.exitCode = 1;
    log(err instanceof Error ? err.message : String(err));
  })
  .finally(() => stopAll().then(() => process.exit()));
