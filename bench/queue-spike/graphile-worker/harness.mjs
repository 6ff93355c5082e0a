// The spike's shared state: the throwaway cluster, our pool, the one `run` task whose handler each
// phase sets, engine instances, and the correctness checks whose failures make the exit code.
import { setTimeout as sleep } from "node:timers/promises";
import { run, runMigrations } from "graphile-worker";
import { makeLease } from "./lease.mjs";
import { countingPool, installAppSchema, quietLogger, startCluster } from "./lib.mjs";

export async function createHarness({ runs, trials }) {
  const cluster = await startCluster();
  const app = countingPool(cluster.url, 20);
  await runMigrations({ connectionString: cluster.url, logger: quietLogger });
  await installAppSchema(app.pool);

  const INSTANCES = 2;
  const CONCURRENCY = 25; // per instance: 2 × 25 = C
  // graphile-worker wakes idle workers by LISTEN/NOTIFY on every add_job; the poll is only a
  // fallback (missed notifications, jobs scheduled for later). Its default, 2 s, is kept.
  const POLL_MS = 2000;
  const failures = [];

  const h = {
    N: runs,
    C: INSTANCES * CONCURRENCY,
    INSTANCES,
    CONCURRENCY,
    WARMUP: 200,
    TRIALS: trials,
    POLL_MS,
    cluster,
    app,
    failures,
    /** What the `run` task does now: each phase sets it. */
    runHandler: async () => {},
    check(condition, message) {
      if (!condition) {
        failures.push(message);
        console.error(`FAIL: ${message}`);
      }
    },
    startInstances,
    waitForNoJobs,
    async close() {
      await app.pool.end().catch(() => {});
      await cluster.stop();
    },
  };
  const taskList = { run: (payload, helpers) => h.runHandler(payload, helpers) };
  h.taskList = taskList;

  async function startInstances({ localQueue = false, abortAfterMs = 5000 } = {}) {
    const instances = [];
    for (let i = 0; i < INSTANCES; i++) {
      const engine = countingPool(cluster.url, CONCURRENCY + 2);
      const lease = makeLease(engine.pool);
      const worker = localQueue ? { localQueue: { size: CONCURRENCY + 1 }, completeJobBatchDelay: 0 } : {};
      const runner = await run({
        pgPool: engine.pool,
        concurrency: CONCURRENCY,
        pollInterval: POLL_MS,
        noHandleSignals: true,
        gracefulShutdownAbortTimeout: abortAfterMs,
        logger: quietLogger,
        taskList,
        preset: { plugins: [lease.plugin], worker },
      });
      const lockId = await lease.whenRegistered;
      instances.push({ engine, lease, runner, lockId });
    }
    return {
      instances,
      engineStatements: () => instances.reduce((sum, i) => sum + i.engine.total(), 0),
      engineBreakdown: () => {
        const all = new Map();
        for (const i of instances) for (const [k, v] of i.engine.breakdown()) all.set(k, (all.get(k) ?? 0) + v);
        return all;
      },
      resetCounts: () => instances.forEach((i) => i.engine.reset()),
      async stop() {
        for (const i of instances) {
          await i.runner.stop();
          await i.lease.stop();
          await i.engine.pool.end();
        }
      },
    };
  }

  async function waitForNoJobs() {
    for (;;) {
      const { rows } = await app.pool.query("select count(*)::int as n from graphile_worker.jobs");
      if (rows[0].n === 0) return;
      await sleep(20); // completions are written after the handler returns, asynchronously
    }
  }

  return h;
}
