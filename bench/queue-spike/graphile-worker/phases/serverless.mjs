// Runs without a long-lived worker.
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { clearTimeout, setTimeout } from "node:timers";
import { setTimeout as sleep } from "node:timers/promises";
import { runOnce, runTaskListOnce } from "graphile-worker";
import { STEP_MS, countingPool, executeRun, quietLogger } from "../lib.mjs";

/**
 * Without a long-lived worker. (a) Jobs accepted while no instance runs, then one `runOnce` call (what
 * a cron or queue-triggered function would do). (b) A run longer than one invocation: each
 * invocation takes due jobs with `runTaskListOnce` on one connection and, at its time budget, shuts
 * its pool down; the handler sees the abort at its next step boundary and enqueues its continuation,
 * which the next invocation takes.
 */
export async function serverlessPhase(h) {
  const { app, cluster, check, taskList } = h;
  const M = 40;
  const executed = new Set();
  h.runHandler = async ({ runId }) => {
    executed.add(runId);
    await executeRun(app.pool, runId);
  };
  const ids = Array.from({ length: M }, () => randomUUID());
  for (const id of ids) await app.pool.query("select spike_accept_run($1, 'serverless', true, false)", [id]);
  const once = countingPool(cluster.url, 4);
  // Without batching, a job's completion is sent without being awaited, and runOnce can resolve
  // before the last one lands (a frozen function would leave that job locked); a batcher, even of
  // 0 ms, is flushed before the pool ends.
  const flushed = { preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } } };
  const t0 = performance.now();
  await runOnce({ pgPool: once.pool, noHandleSignals: true, logger: quietLogger, taskList, ...flushed });
  const ms = performance.now() - t0;
  const statements = once.total();
  const { rows } = await app.pool.query("select count(*)::int as n from graphile_worker.jobs");

  check(ids.every((id) => executed.has(id)) && rows[0].n === 0, `serverless: runOnce ran ${ids.filter((id) => executed.has(id)).length} of ${M} runs, left ${rows[0].n} jobs`);

  const LONG_STEPS = 40;
  const BUDGET_MS = 300;
  const longRun = randomUUID();
  const stepsDone = [];
  let complete = false;
  h.runHandler = async ({ runId, fromStep = 1 }, helpers) => {
    for (let step = fromStep; step <= LONG_STEPS; step++) {
      if (helpers.abortSignal.aborted) {
        await helpers.addJob("run", { runId, fromStep: step }, { jobKey: runId });
        return;
      }
      await sleep(STEP_MS * 5);
      stepsDone.push(step);
    }
    complete = true;
  };
  await app.pool.query("select spike_accept_run($1, 'serverless-long', true, false)", [longRun]);
  let invocations = 0;
  while (!complete && invocations < 20) {
    invocations++;
    const client = await once.pool.connect();
    const pool = runTaskListOnce({ logger: quietLogger, noHandleSignals: true, gracefulShutdownAbortTimeout: 0, ...flushed }, taskList, client);
    let settled = false;
    const done = pool.promise.finally(() => (settled = true));
    const deadline = setTimeout(() => settled || pool.gracefulShutdown("the invocation's time budget is spent"), BUDGET_MS);
    await done;
    clearTimeout(deadline);
    client.release();
  }
  await once.pool.end();
  const repeated = stepsDone.length - new Set(stepsDone).size;
  check(complete && repeated === 0, `serverless: the long run completed ${complete}, ${repeated} step(s) repeated`);
  return { jobs: M, ms, msPerRun: ms / M, statementsPerRun: statements / M, longSteps: LONG_STEPS, budgetMs: BUDGET_MS, invocations, repeated };
}
