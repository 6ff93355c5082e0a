// `npm run bench [-- --quick] [-- --only runs,streams,history,cli,recovery] [-- --profile DIR]`
// Measures the production build (NEXT_DIST_DIR, default .next) against a throwaway
// PostgreSQL and a local fake model, next to a bare node:http server doing the same
// protocol work, and prints a markdown report. Loopback only; every process it starts
// is stopped when it ends, fails or is interrupted.
import { randomBytes, randomUUID } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { createBenchUser, startDatabase } from "./database";
import { measureHistory, seedHistory, type HistoryFigures } from "./history";
import { percentile } from "./load";
import { onCleanup, runScript, stopAll } from "./processes";
import { renderReport, type CliFigures, type Report, type RunsRow, type StreamsRow } from "./report";
import { measureRecovery } from "./recovery";
import { conversationBody, seedConversations, type Conversation } from "./conversation";
import { measureRuns, runBody, type Pace, type Target } from "./runs-phase";
import { assertBuilt, dispatchEnv, distDir, startBaseline, startDispatch, startFakeModel, type DispatchEnv, type Server } from "./servers";
import { measureStreams } from "./streams";

const PHASES = ["runs", "streams", "history", "cli", "recovery"] as const;
type Phase = (typeof PHASES)[number];

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    profile: { type: "string" },
  },
});
const quick = values.quick!;
const only = new Set<Phase>(values.only ? (values.only.split(",") as Phase[]) : PHASES);
for (const p of only) if (!PHASES.includes(p)) throw new Error(`--only takes ${PHASES.join(",")}; got ${p}`);

const plan = {
  warmupMs: quick ? 1_500 : 3_000,
  windowMs: quick ? 3_000 : 10_000,
  concurrency: [1, 10, 50],
  streamLevels: quick ? [500, 1_000] : [1_000, 2_000, 4_000],
  historyMessages: 1_000_000,
  // Each read takes a few ms: 200 were over in a second, so one stall of this shared machine
  // decided the p95 (5 to 15 ms for the same build minutes apart). 1,000 take ~5 s.
  historyRequests: quick ? 100 : 1_000,
  cliCalls: quick ? 15 : 60,
  // The AG-UI door's resent-history case: one seeded thread per worker.
  resentMessages: 200,
  // Each trial waits out the lease of a run whose instance died, on a freshly started instance.
  recoveryTrials: quick ? 3 : 8,
};

// Ports in 3300-3399 when free, so parallel work on this machine can keep clear of them.
const PORTS = { dispatch: 3300, limit: 3301, model: 3302, second: 3303 };

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

async function activeRuns(databaseUrl: string): Promise<number> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ n: string }>("select count(*) as n from runs where status in ('queued', 'running')");
    return Number(rows[0]!.n);
  } finally {
    await db.end();
  }
}

async function releaseStalled(model: Server, databaseUrl: string | null): Promise<void> {
  await fetch(`${model.url}/bench/release`, { method: "POST" });
  if (!databaseUrl) return;
  const deadline = Date.now() + 180_000;
  while ((await activeRuns(databaseUrl)) > 0) {
    if (Date.now() > deadline) throw new Error("Runs still active 180 s after the model was released");
    await new Promise((r) => setTimeout(r, 200));
  }
}

let dbPid: number | null = null;

function dispatchTarget(server: Server, apiKey: string): Target {
  return { port: server.port, pid: server.pid, dbPid, path: "/api/v1/agent/runs", headers: { authorization: `Bearer ${apiKey}` } };
}

function limitTarget(server: Server): Target {
  return { port: server.port, pid: server.pid, path: "/runs", headers: {} };
}

async function warmUp(target: Target, runs: number): Promise<void> {
  await measureRuns(target, { concurrency: 5, warmupMs: 0, windowMs: Math.max(500, runs * 20), pace: "fast" });
}

async function runsPhase(dispatch: Server, limit: Server, apiKey: string, conversations: Conversation[]): Promise<RunsRow[]> {
  const rows: RunsRow[] = [];
  const cases: { label: string; concurrency: number; pace: Pace; windowMs: number }[] = plan.concurrency.map((c) => ({ label: `C=${c}`, concurrency: c, pace: "fast", windowMs: plan.windowMs }));
  if (!quick) cases.push({ label: "C=50, 20 ms/token", concurrency: 50, pace: "slow", windowMs: plan.windowMs * 2 });
  for (const c of cases) {
    const opts = { concurrency: c.concurrency, warmupMs: c.pace === "slow" ? 5_000 : plan.warmupMs, windowMs: c.windowMs, pace: c.pace };
    log(`runs ${c.label}: limit`);
    const l = await measureRuns(limitTarget(limit), opts);
    log(`runs ${c.label}: Dispatch`);
    const d = await measureRuns(dispatchTarget(dispatch, apiKey), opts);
    if (d.firstFailure) log(`a Dispatch run failed: ${d.firstFailure}`);
    rows.push({ label: c.label, dispatch: d, limit: l });
  }
  // POST /api/v1/ag-ui with a 200-message thread resent on every run; the limit reads the same body.
  const resent = { concurrency: conversations.length, warmupMs: plan.warmupMs, windowMs: plan.windowMs, pace: "fast" as const };
  const body = (w: number) => conversationBody(conversations[w]!, "Write me two hundred words, please. [[bench:fast]]");
  log(`runs C=${resent.concurrency}, AG-UI door, ${plan.resentMessages} messages resent: limit`);
  const l = await measureRuns(limitTarget(limit), { ...resent, body });
  log(`runs C=${resent.concurrency}, AG-UI door, ${plan.resentMessages} messages resent: Dispatch`);
  const d = await measureRuns({ ...dispatchTarget(dispatch, apiKey), path: "/api/v1/ag-ui" }, { ...resent, body });
  if (d.firstFailure) log(`a Dispatch run failed: ${d.firstFailure}`);
  rows.push({ label: `C=${resent.concurrency}, /api/v1/ag-ui, ${plan.resentMessages} messages resent`, dispatch: d, limit: l });
  return rows;
}

// The streams phase holds thousands of streams for its one user (and hundreds on one run): far
// past the follower caps that protect a real server, so they are lifted for it.
const UNCAPPED_FOLLOWERS = { RUN_FOLLOWERS_PER_RUN: "100000", RUN_FOLLOWERS_PER_USER: "100000" };

/** Pushes each kind's figures into `rows` as soon as they are measured. */
async function streamsPhase(e: DispatchEnv, model: Server, apiKey: string, rows: StreamsRow[]): Promise<void> {
  const post = (target: Target) => (_i: number) => ({ method: "POST", path: target.path, headers: target.headers, body: runBody(randomUUID(), "stall") });

  log("in-flight streams: limit");
  let limit = await startBaseline(PORTS.limit, `${model.url}/v1`);
  await warmUp(limitTarget(limit), 50);
  let l = await measureStreams({ port: limit.port, pid: limit.pid, levels: plan.streamLevels, next: post(limitTarget(limit)) });
  l.close();
  await releaseStalled(model, null);
  await limit.stop();

  log("in-flight streams: Dispatch");
  let dispatch = await startDispatch(PORTS.dispatch, e, { env: UNCAPPED_FOLLOWERS });
  await warmUp(dispatchTarget(dispatch, apiKey), 50);
  let d = await measureStreams({ port: dispatch.port, pid: dispatch.pid, levels: plan.streamLevels, next: post(dispatchTarget(dispatch, apiKey)) });
  d.close();
  await releaseStalled(model, e.databaseUrl);
  await dispatch.stop();
  rows.push({ kind: "in-flight", dispatch: d.levels, limit: l.levels });

  log("idle streams: limit");
  limit = await startBaseline(PORTS.limit, `${model.url}/v1`);
  await warmUp(limitTarget(limit), 50);
  l = await measureStreams({ port: limit.port, pid: limit.pid, levels: plan.streamLevels, next: () => ({ method: "GET", path: "/idle", headers: {} }) });
  l.close();
  await limit.stop();

  log("idle streams: Dispatch");
  dispatch = await startDispatch(PORTS.dispatch, e, { env: UNCAPPED_FOLLOWERS });
  const target = dispatchTarget(dispatch, apiKey);
  await warmUp(target, 50);
  // A few stalled runs that every follower watches; they are in flight, the followers idle.
  const held = await measureStreams({ port: dispatch.port, pid: dispatch.pid, levels: [10], next: post(target) });
  const runIds = await stalledRunIds(e.databaseUrl);
  d = await measureStreams({
    port: dispatch.port,
    pid: dispatch.pid,
    levels: plan.streamLevels,
    next: (i) => ({ method: "GET", path: `/api/v1/agent/runs/${encodeURIComponent(runIds[i % runIds.length]!)}/events`, headers: target.headers }),
  });
  d.close();
  held.close();
  await releaseStalled(model, e.databaseUrl);
  await dispatch.stop();
  rows.push({ kind: "idle", dispatch: d.levels, limit: l.levels });
}

async function stalledRunIds(databaseUrl: string): Promise<string[]> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ runId: string }>("select run_id as \"runId\" from runs where status = 'running'");
    return rows.map((r) => r.runId);
  } finally {
    await db.end();
  }
}

async function cliPhase(e: DispatchEnv, userId: string): Promise<CliFigures> {
  const out = await runScript("cli-call.ts", ["--user", userId, "--calls", String(plan.cliCalls)], { env: dispatchEnv(e), conditions: ["react-server"], timeoutMs: 120_000 });
  const times = (JSON.parse(out.trim().split("\n").at(-1)!) as number[]).sort((a, b) => a - b);
  return { median: percentile(times, 50), p95: percentile(times, 95), calls: times.length };
}

async function main(): Promise<void> {
  assertBuilt();
  log(`${quick ? "quick" : "full"} run of ${[...only].join(", ")} against ${distDir()}/`);
  const db = await startDatabase();
  dbPid = db.pid;
  const e: DispatchEnv = { databaseUrl: db.url, authSecret: randomBytes(32).toString("base64url"), dataDir: path.join(db.scratch, "data"), modelUrl: "" };
  const model = await startFakeModel(PORTS.model);
  onCleanup(() => model.stop());
  e.modelUrl = `${model.url}/v1`;
  const { userId, apiKey } = await createBenchUser(dispatchEnv(e));
  const profile = values.profile ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(values.profile)}`] : undefined;

  const report: Report = { machine: `${os.cpus().length} cores, ${os.cpus()[0]?.model.trim() ?? "cpu"}, Node ${process.version}`, runs: [], streams: [], history: null, cli: null, recovery: [] };

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
  if (only.has("runs") || only.has("history")) {
    // The long thread is there before the server starts. Seeded while the server waited (~40 s),
    // it was read by a server whose heap V8 had shrunk while it idled: with its pages' buffers
    // it then ran a full collection every ~30 pages, for minutes (p95 11-16 ms against 6-8 for
    // a server that had not idled, same pages, interleaved).
    const thread = only.has("history")
      ? await phase("history", () => {
          log(`history: seeding ${plan.historyMessages.toLocaleString("en-US")} messages`);
          return seedHistory(db.url, userId, plan.historyMessages);
        })
      : null;
    const conversations = only.has("runs") ? await seedConversations(db.url, userId, { threads: 50, messages: plan.resentMessages }) : [];
    const dispatch = await startDispatch(PORTS.dispatch, e, { nodeArgs: profile });
    if (only.has("runs")) {
      await phase("runs", async () => {
        const limit = await startBaseline(PORTS.limit, e.modelUrl);
        report.runs = await runsPhase(dispatch, limit, apiKey, conversations);
        await limit.stop();
      });
    }
    if (thread) {
      await phase("history", async () => {
        log("history: reading pages");
        const timings = await measureHistory({ port: dispatch.port, apiKey, threadId: thread.threadId, requests: plan.historyRequests });
        report.history = { messages: plan.historyMessages, seedSeconds: thread.seedSeconds, ...timings } satisfies HistoryFigures;
      });
    }
    await dispatch.stop();
  }
  if (only.has("cli")) {
    await phase("cli", async () => {
      log("project_cli calls");
      report.cli = await cliPhase(e, userId);
    });
  }
  if (only.has("streams")) await phase("streams", () => streamsPhase(e, model, apiKey, report.streams));
  if (only.has("recovery")) {
    await phase("recovery", async () => {
      const survivor = await startDispatch(PORTS.dispatch, e);
      try {
        for (const signal of ["SIGKILL", "SIGTERM"] as const) {
          log(`recovery: ${plan.recoveryTrials} runs whose instance gets ${signal}`);
          const figures = await measureRecovery({ e, survivor, apiKey, port: PORTS.second, signal, trials: plan.recoveryTrials, log });
          report.recovery.push(figures);
          if (figures.failures.length) process.exitCode = 1;
        }
      } finally {
        await survivor.stop();
      }
    });
  }

  process.stdout.write(`${renderReport(report)}\n`);
}

main()
  .catch((err: unknown) => {
    process.exitCode = 1;
    log(err instanceof Error ? err.message : String(err));
  })
  .finally(() => stopAll().then(() => process.exit()));
