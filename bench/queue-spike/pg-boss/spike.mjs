// Spike: pg-boss as the job engine for Dispatch's durable runs (issue #25), on our run shape.
// Starts its own embedded PostgreSQL, installs pg-boss as an ordinary role, measures throughput
// at C=50 against the bare limit, pickup latency, kill -9 recovery, and checks per-key
// serialization, transactional enqueue, cancel-before-start and a serverless drain.
// Prints markdown; exits non-zero when a correctness claim fails. See README.md.
import { PgBoss } from "pg-boss";
import pg from "pg";
import { randomInt, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import os from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { performance } from "node:perf_hooks";
import { startCluster } from "./lib/cluster.mjs";
import { ACCEPT_FUNCTION, bossOptions, createQueues, onClient, RUNS_QUEUE, HEARTBEAT_SECONDS } from "./lib/engine.mjs";
import { check, failed, fmt, percentile, table } from "./lib/measure.mjs";
import { startDispatcher } from "./lib/dispatcher.mjs";
import { measureRecovery } from "./lib/recovery.mjs";
import { acceptRunBare, executeRun, RunLedger, RUNS_SCHEMA, STEP_MS, STEPS } from "./lib/run-shape.mjs";
import { cancelBeforeStart, cancelWhileRunning, failedJobBlocksKey, perKeySerialization, serverlessDrain, transactionalEnqueue } from "./lib/semantics.mjs";

const N = Number(process.env.SPIKE_JOBS ?? 2000);
const C = 50;
const WARMUP = 300;
const RECOVERY_TRIALS = Number(process.env.SPIKE_RECOVERY_TRIALS ?? 12);
const POLL_ONLY_QUEUE = "runs-poll";

const loadavg = () => os.loadavg().map((l) => l.toFixed(2)).join(" ");
const version = JSON.parse(readFileSync(new URL("./node_modules/pg-boss/package.json", import.meta.url))).version;
console.log(`# pg-boss ${version} on Dispatch's run shape\n`);
console.log(`node ${process.version}, ${os.cpus().length} cores, load average at start: ${loadavg()}`);
console.log(`run = ${STEPS} steps of (${STEP_MS} ms timer + 1 UPDATE); C=${C}; N=${N}; lease = heartbeat ${HEARTBEAT_SECONDS} s\n`);

const cluster = await startCluster();
const app = new pg.Pool({ connectionString: cluster.url, max: 30 });
const instances = [];
const figures = [];
try {
  await app.query(RUNS_SCHEMA);
  let t = performance.now();
  const a = new PgBoss(bossOptions(cluster.url, { instanceName: "A" }));
  a.on("error", (e) => console.error("[A]", e.message));
  await a.start();
  const installMs = performance.now() - t;
  await createQueues(a);
  await a.createQueue(POLL_ONLY_QUEUE, { notify: false, heartbeatSeconds: HEARTBEAT_SECONDS, expireInSeconds: 3600, retryLimit: 10 });
  await app.query(ACCEPT_FUNCTION);
  const b = new PgBoss(bossOptions(cluster.url, { instanceName: "B", migrate: false }));
  b.on("error", (e) => console.error("[B]", e.message));
  await b.start();
  instances.push(a, b);
  const schema = (
    await app.query(`select
      (select count(*) from pg_tables where schemaname = 'pgboss')::int as tables,
      (select count(*) from pg_indexes where schemaname = 'pgboss')::int as indexes,
      (select count(*) from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'pgboss')::int as functions,
      (select count(*) from pg_type t join pg_namespace n on n.oid = t.typnamespace where n.nspname = 'pgboss' and t.typtype = 'e')::int as enums,
      (select rolsuper from pg_roles where rolname = current_user) as superuser,
      (select count(*) from pg_extension where extname <> 'plpgsql' and extname <> 'pg_stat_statements')::int as extensions`)
  ).rows[0];
  console.log(`schema installed as a ${schema.superuser ? "SUPERUSER" : "non-superuser"} role in ${fmt(installMs, 0)} ms: ${schema.tables} tables, ${schema.indexes} indexes, ${schema.functions} functions, ${schema.enums} enum type(s), ${schema.extensions} extensions needed\n`);
  check("installs and runs without superuser or extensions", !schema.superuser && schema.extensions === 0);

  // Parts 1-3: throughput at C=50, engine vs the same handler driven directly.
  let ledger = new RunLedger();
  const handler = async ([job]) => {
    ledger.started(job.data.runId);
    await executeRun(app, job.data.runId);
    ledger.finished(job.data.runId);
  };
  const runWorkIds = [];
  for (const boss of instances) runWorkIds.push(await boss.work(RUNS_QUEUE, { localConcurrency: 25, pollingIntervalSeconds: 0.5 }, handler));

  const accepts = {
    bare: async (runId, thread) => {
      await acceptRunBare(app, runId, thread);
      ledger.started(runId);
      await executeRun(app, runId);
      ledger.finished(runId);
    },
    "pg-boss, accept = tx(insert; send)": async (runId, thread) => {
      const client = await app.connect();
      try {
        await client.query("begin");
        await acceptRunBare(client, runId, thread);
        await a.send(RUNS_QUEUE, { runId }, { db: onClient(client) });
        await client.query("commit");
      } finally {
        client.release();
      }
    },
    "pg-boss, accept = one SQL function": (runId, thread) => app.query("select spike_accept_run($1, $2, $3)", [runId, thread, RUNS_QUEUE]),
  };

  async function drive(label, count, concurrency, accept, measured = true) {
    ledger = new RunLedger();
    const e2e = [];
    if (measured) await cluster.resetStatements();
    const cpu0 = process.cpuUsage();
    const pg0 = cluster.cpuMs();
    const load0 = loadavg();
    const t0 = performance.now();
    let issued = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (issued < count) {
          issued++;
          const runId = randomUUID();
          const began = performance.now();
          const finished = ledger.accepted(runId);
          await accept(runId, `thread-${randomInt(1e9)}`);
          await finished;
          e2e.push(performance.now() - began);
        }
      }),
    );
    const wallMs = performance.now() - t0;
    if (!measured) return;
    const cpu = process.cpuUsage(cpu0);
    const statements = await cluster.statements();
    if (process.env.SPIKE_TOP_STATEMENTS) console.log(label, await cluster.topStatements(8));
    const { rows } = await app.query("select count(*)::int as n from runs where state = 'done'");
    check(`${label}: all ${count} runs executed exactly once`, ledger.size === count && ledger.duplicates() === 0 && ledger.pickupsMs().length === count);
    figures.push({
      label,
      perSec: (count * 1000) / wallMs,
      nodeCpu: (cpu.user + cpu.system) / 1000 / count,
      pgCpu: (cluster.cpuMs() - pg0) / count,
      statements: statements.total / count,
      engineStatements: statements.engine / count,
      pickupP50: percentile(ledger.pickupsMs(), 50),
      pickupP95: percentile(ledger.pickupsMs(), 95),
      e2eP50: percentile(e2e, 50),
      e2eP95: percentile(e2e, 95),
      load: `${load0} → ${loadavg()}`,
      done: rows[0].n,
    });
  }

  for (const [label, accept] of Object.entries(accepts)) {
    await drive(`${label} (warm-up)`, WARMUP, C, accept, false);
    await drive(label, N, C, accept);
  }

  // Part 3: pickup on an idle system, with NOTIFY and with polling only. A random pause before
  // each run lets the workers fall back into their poll delay, as on an idle server.
  async function idle(label, queue, trials) {
    ledger = new RunLedger();
    await cluster.resetStatements();
    for (let i = 0; i < trials; i++) {
      await sleep(randomInt(50, 700));
      const runId = randomUUID();
      const finished = ledger.accepted(runId);
      await acceptRunBare(app, runId, "idle");
      await a.send(queue, { runId });
      await finished;
    }
    const statements = await cluster.statements();
    check(`${label}: every run executed exactly once`, ledger.duplicates() === 0 && ledger.pickupsMs().length === trials);
    return { label, p50: percentile(ledger.pickupsMs(), 50), p95: percentile(ledger.pickupsMs(), 95), statementsPerRun: statements.total / trials };
  }
  const idleRows = [await idle("idle, NOTIFY (2 instances x 25 workers)", RUNS_QUEUE, 20)];
  const pollIds = await Promise.all(instances.map((boss) => boss.work(POLL_ONLY_QUEUE, { localConcurrency: 25, pollingIntervalSeconds: 0.5 }, handler)));
  idleRows.push(await idle("idle, polling only every 0.5 s (2 x 25 workers)", POLL_ONLY_QUEUE, 12));
  // What an idle deployment costs the database: statements per second with nothing to do.
  await cluster.resetStatements();
  let quiet = performance.now();
  await sleep(3000);
  const pollingIdle = ((await cluster.statements()).total * 1000) / (performance.now() - quiet);
  await Promise.all(instances.map((boss, i) => boss.offWork(POLL_ONLY_QUEUE, { id: pollIds[i] })));
  await cluster.resetStatements();
  quiet = performance.now();
  await sleep(3000);
  const notifyIdle = ((await cluster.statements()).total * 1000) / (performance.now() - quiet);

  // The same with our own claim loop (lib/dispatcher.mjs) in place of work(): 25 slots per instance.
  await Promise.all(instances.map((boss, i) => boss.offWork(RUNS_QUEUE, { id: runWorkIds[i] })));
  const dispatchers = await Promise.all(
    instances.map((boss) => startDispatcher({ boss, url: cluster.url, queue: RUNS_QUEUE, capacity: 25, handler: (job) => handler([job]) })),
  );
  const dispatched = "own claim loop (2 x 25 slots), accept = one SQL function";
  await drive(`${dispatched} (warm-up)`, WARMUP, C, accepts["pg-boss, accept = one SQL function"], false);
  await drive(dispatched, N, C, accepts["pg-boss, accept = one SQL function"]);
  idleRows.push(await idle("idle, own claim loop (NOTIFY + 1 poll/0.5 s per instance)", RUNS_QUEUE, 20));
  await cluster.resetStatements();
  quiet = performance.now();
  await sleep(3000);
  const dispatcherIdle = ((await cluster.statements()).total * 1000) / (performance.now() - quiet);
  await Promise.all(dispatchers.map((d) => d.stop()));

  // Part 4: recovery after kill -9, by pg-boss alone, then with our liveness lock in front of it.
  const recovery = {};
  for (const mode of ["heartbeat", "fast"]) {
    t = performance.now();
    const r = await measureRecovery({ url: cluster.url, boss: a, trials: RECOVERY_TRIALS, perRound: 6, mode });
    recovery[mode] = { ...r, wallS: (performance.now() - t) / 1000 };
    check(`recovery (${mode}): every killed job restarted on the survivor, and ran exactly twice (victim + survivor)`, r.everyJobRanTwice && r.recoveries.length === RECOVERY_TRIALS);
    check(`recovery (${mode}): the restart is the job's next attempt (retryCount 1)`, r.retryCounts.every((n) => n === 1));
  }

  // Parts 5-8.
  const perKey = await perKeySerialization({ app, instances });
  await failedJobBlocksKey({ boss: a });
  await transactionalEnqueue({ app, boss: a });
  await cancelBeforeStart({ boss: a });
  const activeCancel = await cancelWhileRunning({ boss: a });
  const serverless = await serverlessDrain({ app, boss: a, url: cluster.url });

  console.log(`\n## Throughput at C=${C}, N=${N} (2 instances x 25 workers for pg-boss; 50 direct calls for bare)\n`);
  console.log(
    table(
      ["case", "runs/s", "node CPU ms/run", "PG CPU ms/run", "statements/run (engine's)", "pickup p50/p95 ms", "run end-to-end p50/p95 ms", "load avg 1/5/15 (start → end)"],
      figures.map((f) => [
        f.label,
        fmt(f.perSec, 0),
        fmt(f.nodeCpu, 2),
        fmt(f.pgCpu, 2),
        `${fmt(f.statements, 1)} (${fmt(f.engineStatements, 1)})`,
        `${fmt(f.pickupP50)} / ${fmt(f.pickupP95)}`,
        `${fmt(f.e2eP50)} / ${fmt(f.e2eP95)}`,
        f.load,
      ]),
    ),
  );
  const [bare, ...engine] = figures;
  console.log("\nEngine cost = row − bare, per run (and per step = per run / " + STEPS + "):");
  for (const f of engine) {
    const cpu = f.nodeCpu + f.pgCpu - bare.nodeCpu - bare.pgCpu;
    console.log(`- ${f.label}: ${fmt(cpu, 2)} ms CPU/run (${fmt(cpu / STEPS, 2)} ms/step), ${fmt(f.statements - bare.statements, 1)} statements/run, throughput ${fmt(f.perSec / bare.perSec, 2)}x bare`);
  }
  console.log("\n## Pickup latency (enqueue → handler starts)\n");
  console.log(
    table(
      ["case", "p50 ms", "p95 ms", "statements/run"],
      [...idleRows.map((r) => [r.label, fmt(r.p50), fmt(r.p95), fmt(r.statementsPerRun, 1)]), ...engine.map((f) => [`C=${C}, ${f.label}`, fmt(f.pickupP50), fmt(f.pickupP95), fmt(f.statements, 1)])],
    ),
  );
  console.log(`\nIdle database load from 2 instances (monitor passes included): ${fmt(notifyIdle, 1)} statements/s with work() on NOTIFY queues; ${fmt(pollingIdle, 1)}/s with a polling-only work() queue (25 loops each, 0.5 s) added; ${fmt(dispatcherIdle, 1)}/s with our claim loop.`);
  console.log(`\n## Recovery after kill -9 (${RECOVERY_TRIALS} trials each; kill → the job's handler starts on the survivor)\n`);
  const labels = {
    heartbeat: `pg-boss alone: heartbeat ${HEARTBEAT_SECONDS} s (touched every ${HEARTBEAT_SECONDS / 2} s), monitor every 1 s, poll 0.5 s`,
    fast: "ours in front: executor's session advisory lock + sweeper every 250 ms failing the attempt",
  };
  const s = (ms) => fmt(ms / 1000, 2);
  console.log(
    table(
      ["mechanism", "p50 s", "p95 s", "min s", "max s", "wall s"],
      Object.entries(recovery).map(([mode, r]) => [labels[mode], s(percentile(r.recoveries, 50)), s(percentile(r.recoveries, 95)), s(Math.min(...r.recoveries)), s(Math.max(...r.recoveries)), fmt(r.wallS, 0)]),
    ),
  );
  console.log(`\n## Per-key serialization (key_strict_fifo): up to ${perKey.maxParallel} threads at once; handoff (run ends → the thread's next starts) p50 ${fmt(perKey.handoffP50, 0)} ms, p95 ${fmt(perKey.handoffP95, 0)} ms`);
  console.log(`\n## Cancel of a running job: its handler's AbortSignal fired ${fmt(activeCancel.abortedAfterMs, 0)} ms after cancel() (work() notices at its next heartbeat touch, every ${HEARTBEAT_SECONDS / 2} s)`);
  console.log(`\n## Serverless drain: ${serverless.jobs} runs in one invocation of ${fmt(serverless.invocationMs, 0)} ms (PgBoss start ${fmt(serverless.startedMs, 0)} ms, ${serverless.fetches} fetches)`);
  console.log(`\nload average at end: ${loadavg()}`);
} finally {
  await Promise.all(instances.map((boss) => boss.stop({ graceful: false }).catch(() => {})));
  await app.end();
  await cluster.stop();
}
const failures = failed();
if (failures.length) {
  console.error(`\n${failures.length} claim(s) failed:\n- ${failures.join("\n- ")}`);
  process.exit(1);
}
console.log("\nAll correctness claims held.");
