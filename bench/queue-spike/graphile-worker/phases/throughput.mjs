// Cost and latency: the run at C=50 with and without the engine, the enqueue's share of the
// accept, pickup and idle cost.
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { STEPS, clusterCpuSeconds, executeRun, loadAverage, percentile } from "../lib.mjs";

/**
 * C producers accept runs and wait for each to finish, until `total` runs. `engine` null: the bare
 * limit (the accepting code executes the run itself). Returns per-run pickup and whole-run times.
 */
async function drive(h, { total, engine, serial, raw }) {
  const { C, app, check } = h;
  const pending = new Map();
  const executed = new Map();
  h.runHandler = async ({ runId }) => {
    executed.set(runId, (executed.get(runId) ?? 0) + 1);
    const run = pending.get(runId);
    run.startedAt = performance.now();
    await executeRun(app.pool, runId);
    run.finish();
  };
  let next = 0;
  const pickups = [];
  const wholes = [];
  const producer = async (p) => {
    while (next < total) {
      next++;
      const runId = randomUUID();
      const run = { acceptedAt: performance.now() };
      const finished = new Promise((resolve) => (run.finish = resolve));
      pending.set(runId, run);
      if (raw) await app.pool.query("select spike_accept_raw($1, $2)", [runId, `thread-${p}`]);
      else await app.pool.query("select spike_accept_run($1, $2, $3, $4)", [runId, `thread-${p}`, engine !== null, serial]);
      if (engine === null) {
        run.startedAt = performance.now();
        await executeRun(app.pool, runId);
      } else {
        await finished;
      }
      pickups.push(run.startedAt - run.acceptedAt);
      wholes.push(performance.now() - run.acceptedAt);
      pending.delete(runId);
    }
  };
  await Promise.all(Array.from({ length: C }, (_, p) => producer(p)));
  if (engine) {
    check(executed.size === total, `${total} runs accepted, ${executed.size} executed`);
    check([...executed.values()].every((n) => n === 1), "a run executed more than once");
  }
  return { pickups, wholes };
}

export async function throughputPhase(h, label, { useEngine, serial = false, localQueue = false, raw = false, total = h.N }) {
  const { WARMUP, app, cluster, check, startInstances, waitForNoJobs } = h;
  await app.pool.query("truncate runs");
  const engine = useEngine ? await startInstances({ localQueue }) : null;
  await drive(h, { total: WARMUP, engine, serial, raw });
  if (engine) await waitForNoJobs();
  app.reset();
  engine?.resetCounts();
  const cpu0 = process.cpuUsage();
  const pg0 = clusterCpuSeconds(cluster.dir);
  const t0 = performance.now();
  const { pickups, wholes } = await drive(h, { total, engine, serial, raw });
  const seconds = (performance.now() - t0) / 1000;
  if (engine) await waitForNoJobs(); // the last completions belong to this phase's cost
  const cpu = process.cpuUsage(cpu0);
  const pgSeconds = clusterCpuSeconds(cluster.dir) - pg0;
  const { rows } = await app.pool.query("select count(*)::int as n, count(*) filter (where status = 'completed' and step = $1)::int as done from runs", [STEPS]);
  check(rows[0].n === total + WARMUP && rows[0].done === total + WARMUP, `${label}: ${rows[0].done} of ${total + WARMUP} runs completed`);
  const engineStatements = engine ? engine.engineStatements() : 0;
  const breakdown = engine ? engine.engineBreakdown() : new Map();
  if (engine) await engine.stop();
  return {
    label,
    runsPerSecond: total / seconds,
    pickupP50: percentile(pickups, 50),
    pickupP95: percentile(pickups, 95),
    wholeP50: percentile(wholes, 50),
    wholeP95: percentile(wholes, 95),
    nodeCpuMsPerRun: ((cpu.user + cpu.system) / 1000) / total,
    pgCpuMsPerRun: (pgSeconds * 1000) / total,
    appStatementsPerRun: app.total() / total,
    engineStatementsPerRun: engineStatements / total,
    breakdown: new Map([...breakdown].map(([k, v]) => [k, v / total])),
    load: loadAverage(),
  };
}

/**
 * The enqueue's share of the cost: producers accept runs with no worker running (the jobs pile up
 * and are deleted afterwards), with and without add_job, and with a bare NOTIFY instead of a job;
 * alone (C=1) and at C.
 */
export async function acceptCostPhase(h) {
  const { N, C, app, cluster } = h;
  const plain = "select spike_accept_run($1, $2, $3, false)";
  const kinds = [
    ["accept, no enqueue (today)", plain, [false]],
    ["accept + add_job", plain, [true]],
    ["accept + pg_notify only (no job)", "select spike_accept_notify($1, $2)", []],
  ];
  const results = [];
  for (const [concurrency, total] of [
    [1, N / 8],
    [C, N],
  ]) {
    for (const [label, sql, params] of kinds) {
      await app.pool.query("truncate runs");
      await app.pool.query("delete from graphile_worker._private_jobs");
      let next = 0;
      const pg0 = clusterCpuSeconds(cluster.dir);
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async (_, p) => {
          while (next < total) {
            next++;
            await app.pool.query(sql, [randomUUID(), `thread-${p}`, ...params]);
          }
        }),
      );
      const seconds = (performance.now() - t0) / 1000;
      results.push({ label, concurrency, perSecond: total / seconds, pgCpuMs: ((clusterCpuSeconds(cluster.dir) - pg0) * 1000) / total });
    }
  }
  await app.pool.query("truncate runs");
  await app.pool.query("delete from graphile_worker._private_jobs");
  return results;
}

export async function idlePhase(h) {
  const { POLL_MS, app, startInstances, waitForNoJobs } = h;
  const engine = await startInstances();
  h.runHandler = async () => {};
  // Idle cost: what the instances send while no job exists, over a few poll intervals.
  engine.resetCounts();
  const idleStart = performance.now();
  await sleep(3 * POLL_MS);
  const idleStatementsPerSecond = engine.engineStatements() / ((performance.now() - idleStart) / 1000);
  const pickups = [];
  for (let i = 0; i < 50; i++) {
    const runId = randomUUID();
    let started;
    const startedPromise = new Promise((resolve) => (started = resolve));
    h.runHandler = async (payload) => {
      if (payload.runId === runId) started(performance.now());
    };
    const acceptedAt = performance.now();
    await app.pool.query("select spike_accept_run($1, 'idle', true, false)", [runId]);
    pickups.push((await startedPromise) - acceptedAt);
    await waitForNoJobs();
  }
  await engine.stop();
  return { pickupP50: percentile(pickups, 50), pickupP95: percentile(pickups, 95), idleStatementsPerSecond };
}
