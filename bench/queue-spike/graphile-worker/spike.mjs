// Spike: graphile-worker as the job engine of durable runs (issue #25), measured on Dispatch's run
// shape against the same run driven without an engine. Prints markdown tables; exits non-zero when
// a correctness claim fails (a lost or repeated run, an overlap within a key, a job that survives a
// rolled-back accept or a cancel). See README.md.
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { EventEmitter, once } from "node:events";
import { performance } from "node:perf_hooks";
import { clearTimeout, setTimeout } from "node:timers";
import { setTimeout as sleep } from "node:timers/promises";
import { run, runMigrations, runOnce, runTaskListOnce } from "graphile-worker";
import {
  HEARTBEAT_MS,
  LEASE_MS,
  ORPHAN_SWEEP_MS,
  REAP_EVERY_MS,
  STEPS,
  STEP_MS,
  clusterCpuSeconds,
  countingPool,
  executeRun,
  installAppSchema,
  loadAverage,
  makeLease,
  percentile,
  quietLogger,
  startCluster,
} from "./lib.mjs";

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=")));
const N = Number(args.get("runs") ?? 2000);
const C = 50;
const INSTANCES = 2;
const CONCURRENCY = 25; // per instance: 2 × 25 = C
const WARMUP = 200;
const TRIALS = Number(args.get("trials") ?? 12);
// graphile-worker wakes idle workers by LISTEN/NOTIFY on every add_job; the poll is only a fallback
// (missed notifications, jobs scheduled for later). Its default, 2 s, is kept.
const POLL_MS = 2000;

const failures = [];
function check(condition, message) {
  if (!condition) {
    failures.push(message);
    console.error(`FAIL: ${message}`);
  }
}
const fmt = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");
const tables = [];

const cluster = await startCluster();
const app = countingPool(cluster.url, 20);
await runMigrations({ connectionString: cluster.url, logger: quietLogger });
await installAppSchema(app.pool);

/** What the `run` task does now: each phase sets it. */
let runHandler = async () => {};
const taskList = { run: (payload, helpers) => runHandler(payload, helpers) };

async function startInstances({ localQueue = false, abortAfterMs = 5000 } = {}) {
  const instances = [];
  for (let i = 0; i < INSTANCES; i++) {
    const engine = countingPool(cluster.url, CONCURRENCY + 2);
    const lease = makeLease(engine.pool);
    const events = new EventEmitter();
    const worker = localQueue ? { localQueue: { size: CONCURRENCY + 1 }, completeJobBatchDelay: 0 } : {};
    const runner = await run({
      pgPool: engine.pool,
      concurrency: CONCURRENCY,
      pollInterval: POLL_MS,
      noHandleSignals: true,
      gracefulShutdownAbortTimeout: abortAfterMs,
      logger: quietLogger,
      events,
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

/**
 * C producers accept runs and wait for each to finish, until `total` runs. `engine` null: the bare
 * limit (the accepting code executes the run itself). Returns per-run pickup and whole-run times.
 */
async function drive({ total, engine, serial, raw }) {
  const pending = new Map();
  const executed = new Map();
  runHandler = async ({ runId }) => {
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

async function throughputPhase(label, { useEngine, serial = false, localQueue = false, raw = false, total = N }) {
  await app.pool.query("truncate runs");
  const engine = useEngine ? await startInstances({ localQueue }) : null;
  await drive({ total: WARMUP, engine, serial, raw });
  if (engine) await waitForNoJobs();
  app.reset();
  engine?.resetCounts();
  const cpu0 = process.cpuUsage();
  const pg0 = clusterCpuSeconds(cluster.dir);
  const t0 = performance.now();
  const { pickups, wholes } = await drive({ total, engine, serial, raw });
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
async function acceptCostPhase() {
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

async function idlePhase() {
  const engine = await startInstances();
  runHandler = async () => {};
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
    runHandler = async (payload) => {
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

/** Jobs of one thread run one at a time and in order, threads in parallel, across both instances. */
async function serializationPhase({ localQueue = false } = {}) {
  const engine = await startInstances({ localQueue });
  const THREADS = 10;
  const PER_THREAD = 8;
  const active = new Map();
  const lastSeq = new Map();
  let running = 0;
  let maxRunning = 0;
  let overlaps = 0;
  let outOfOrder = 0;
  const seqOf = new Map();
  let done = 0;
  let allDone;
  const finished = new Promise((resolve) => (allDone = resolve));
  runHandler = async ({ runId }) => {
    const { thread, seq } = seqOf.get(runId);
    if (active.get(thread)) overlaps++;
    if (seq !== (lastSeq.get(thread) ?? -1) + 1) outOfOrder++;
    active.set(thread, true);
    maxRunning = Math.max(maxRunning, ++running);
    await sleep(2 + (seq % 3) * 3);
    lastSeq.set(thread, seq);
    running--;
    active.set(thread, false);
    if (++done === THREADS * PER_THREAD) allDone();
  };
  await Promise.all(
    Array.from({ length: THREADS }, async (_, t) => {
      for (let seq = 0; seq < PER_THREAD; seq++) {
        const runId = randomUUID();
        seqOf.set(runId, { thread: `serial-${t}`, seq });
        await app.pool.query("select spike_accept_run($1, $2, true, true)", [runId, `serial-${t}`]);
      }
    }),
  );
  await finished;
  await waitForNoJobs();
  const { rows } = await app.pool.query("select count(*)::int as n from graphile_worker._private_job_queues");
  await engine.stop();
  check(overlaps === 0, `per-key serialization: ${overlaps} overlapping runs within a thread`);
  check(outOfOrder === 0, `per-key serialization: ${outOfOrder} runs out of order within a thread`);
  check(maxRunning > 1, "per-key serialization: threads never ran in parallel");
  return { jobs: THREADS * PER_THREAD, overlaps, outOfOrder, maxRunning, queueRowsLeft: rows[0].n };
}

/** The accept and the enqueue are one statement: a rolled-back accept leaves neither run nor job. */
async function transactionalPhase() {
  const client = await app.pool.connect();
  const runId = randomUUID();
  try {
    await client.query("begin");
    await client.query("select spike_accept_run($1, 'tx', true, false)", [runId]);
    const inside = await client.query("select count(*)::int as n from graphile_worker.jobs where key = $1", [runId]);
    await client.query("rollback");
    const after = await app.pool.query("select (select count(*) from graphile_worker.jobs where key = $1::text)::int as jobs, (select count(*) from runs where id = $1::uuid)::int as runs", [runId]);
    check(inside.rows[0].n === 1, "transactional enqueue: the job was not visible inside its transaction");
    check(after.rows[0].jobs === 0 && after.rows[0].runs === 0, "transactional enqueue: a rolled-back accept left a job or a run");
    return { jobInside: inside.rows[0].n, jobsAfterRollback: after.rows[0].jobs, runsAfterRollback: after.rows[0].runs };
  } finally {
    client.release();
  }
}

/**
 * A run queued behind a busy thread is cancelled before it starts (remove_job by its key, the run
 * id); the thread's next run then runs and the cancelled one never does. remove_job on the running
 * one cannot stop it: it only prevents a retry.
 */
async function cancelPhase() {
  const engine = await startInstances();
  const [busy, cancelled, later] = [randomUUID(), randomUUID(), randomUUID()];
  const started = new Set();
  let releaseBusy;
  const busyReleased = new Promise((resolve) => (releaseBusy = resolve));
  let busyStarted;
  const busyStartedPromise = new Promise((resolve) => (busyStarted = resolve));
  let laterDone;
  const laterDonePromise = new Promise((resolve) => (laterDone = resolve));
  runHandler = async ({ runId }) => {
    started.add(runId);
    if (runId === busy) {
      busyStarted();
      await busyReleased;
    }
    if (runId === later) laterDone();
  };
  await app.pool.query("select spike_accept_run($1, 'cancel-thread', true, true)", [busy]);
  await busyStartedPromise;
  await app.pool.query("select spike_accept_run($1, 'cancel-thread', true, true)", [cancelled]);
  const removedQueued = await app.pool.query("select id, locked_at from graphile_worker.remove_job($1)", [cancelled]);
  const removedRunning = await app.pool.query("select id, locked_at, attempts, max_attempts from graphile_worker.remove_job($1)", [busy]);
  const stillThere = await app.pool.query("select count(*)::int as n from graphile_worker.jobs where id = $1", [removedRunning.rows[0].id]);
  await app.pool.query("select spike_accept_run($1, 'cancel-thread', true, true)", [later]);
  releaseBusy();
  await laterDonePromise;
  await waitForNoJobs();
  await engine.stop();
  check(removedQueued.rows[0].locked_at === null, "cancel: the queued job was not removed");
  check(!started.has(cancelled), "cancel: a cancelled run started");
  check(stillThere.rows[0].n === 1, "cancel: remove_job deleted a running job");
  return {
    queuedRemoved: removedQueued.rows[0].locked_at === null,
    cancelledStarted: started.has(cancelled),
    runningJobKept: stillThere.rows[0].n === 1,
    runningAttemptsSetToMax: removedRunning.rows[0].attempts === removedRunning.rows[0].max_attempts,
  };
}

/**
 * Without a long-lived worker. (a) Jobs accepted while no instance runs, then one `runOnce` call (what
 * a cron or queue-triggered function would do). (b) A run longer than one invocation: each
 * invocation takes due jobs with `runTaskListOnce` on one connection and, at its time budget, shuts
 * its pool down; the handler sees the abort at its next step boundary and enqueues its continuation,
 * which the next invocation takes.
 */
async function serverlessPhase() {
  const M = 40;
  const executed = new Set();
  runHandler = async ({ runId }) => {
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
  runHandler = async ({ runId, fromStep = 1 }, helpers) => {
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

/**
 * Graceful hand-back (what SIGTERM would do): the instance executing a long run stops; the run's
 * handler sees the pool's abort signal at its next step boundary, enqueues its continuation (same
 * job key, the step to resume from) and returns; the other instance continues at once. A handler
 * that threw instead would be retried only after graphile-worker's backoff (e^attempts seconds).
 */
async function handBackPhase() {
  const engine = await startInstances({ abortAfterMs: 0 });
  const LONG_STEPS = 40;
  const runId = randomUUID();
  const stepsDone = [];
  const starts = [];
  let finished;
  const finishedPromise = new Promise((resolve) => (finished = resolve));
  let firstStarted;
  const firstStartedPromise = new Promise((resolve) => (firstStarted = resolve));
  runHandler = async ({ fromStep = 1 }, helpers) => {
    starts.push({ fromStep, lockedBy: helpers.job.locked_by, at: performance.now() });
    if (starts.length === 1) firstStarted(helpers.job.locked_by);
    for (let step = fromStep; step <= LONG_STEPS; step++) {
      if (helpers.abortSignal.aborted) {
        await helpers.addJob("run", { runId, fromStep: step }, { jobKey: runId });
        return;
      }
      await sleep(STEP_MS * 5);
      stepsDone.push(step);
    }
    finished();
  };
  await app.pool.query("select spike_accept_run($1, 'handback', true, false)", [runId]);
  const lockedBy = await firstStartedPromise;
  const executing = engine.instances.find((i) => i.lockId === lockedBy);
  const stopAt = performance.now();
  await executing.runner.stop();
  const stopMs = performance.now() - stopAt;
  await finishedPromise;
  await waitForNoJobs();
  // An idle worker of the stopping pool may still take the continuation in the instant before the
  // pool deactivates; its handler, already aborted, hands it on again: counted, not a failure.
  const resumed = starts.find((start) => start.lockedBy !== lockedBy);
  const extraHops = starts.filter((start, i) => i > 0 && start.lockedBy === lockedBy).length;
  for (const i of engine.instances) if (i !== executing) await i.runner.stop();
  for (const i of engine.instances) {
    await i.lease.stop();
    await i.engine.pool.end();
  }
  const repeated = stepsDone.length - new Set(stepsDone).size;
  check(resumed !== undefined && starts.at(-1).lockedBy !== lockedBy, `hand-back: the run did not continue on the other instance (${JSON.stringify({ lockedBy, starts })})`);
  check(repeated === 0 && new Set(stepsDone).size === LONG_STEPS, `hand-back: ${repeated} step(s) repeated, ${new Set(stepsDone).size} of ${LONG_STEPS} done`);
  return { stopMs, resumeMs: resumed.at - stopAt, resumedFrom: resumed.fromStep, repeated, extraHops };
}

/**
 * Recovery: two worker processes; the one that takes the job (whose first attempt never returns)
 * is killed with SIGKILL; kill → the job's handler starting on the survivor. Then a fresh process
 * replaces the dead one, so every trial starts with two.
 */
async function recoveryPhase() {
  const children = new Set();
  const messages = new EventEmitter();
  const spawn = async () => {
    const child = fork(new URL("./child.mjs", import.meta.url), [cluster.url], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    child.on("message", (m) => messages.emit(m.type, { ...m, child }));
    child.on("exit", () => children.delete(child));
    children.add(child);
    await new Promise((resolve) => {
      const onReady = (m) => {
        if (m.child !== child) return;
        messages.off("ready", onReady);
        resolve();
      };
      messages.on("ready", onReady);
    });
    return child;
  };
  const waitFor = (type, predicate) =>
    new Promise((resolve) => {
      const on = (m) => {
        if (!predicate(m)) return;
        messages.off(type, on);
        resolve(m);
      };
      messages.on(type, on);
    });
  await Promise.all([spawn(), spawn()]);
  const times = [];
  let extraStarts = 0;
  messages.on("start", (m) => {
    if (m.attempts > 2) extraStarts++;
  });
  for (let trial = 0; trial < TRIALS; trial++) {
    const runId = randomUUID();
    const firstStart = waitFor("start", (m) => m.runId === runId && m.attempts === 1);
    await app.pool.query("select graphile_worker.add_job('block', json_build_object('runId', $1::text), job_key := $1::text)", [runId]);
    const { child: victim } = await firstStart;
    const secondStart = waitFor("start", (m) => m.runId === runId && m.attempts === 2);
    const finished = waitFor("done", (m) => m.runId === runId);
    const exited = once(victim, "exit");
    const killedAt = Date.now();
    victim.kill("SIGKILL");
    const second = await secondStart;
    check(second.child !== victim, "recovery: the killed process ran the job again");
    times.push(second.at - killedAt);
    await finished;
    await exited;
    await spawn();
  }
  // An orphan lock: a job locked under an id that never had a heartbeat (a pool killed before its
  // lease row was written). The children do not run `run` jobs, so only the sweep can touch it.
  const ghost = randomUUID();
  await app.pool.query("select graphile_worker.add_job('run', json_build_object('runId', $1::text), job_key := $1::text)", [ghost]);
  await app.pool.query("update graphile_worker._private_jobs set locked_by = 'pool-ghost', locked_at = now() - $2::interval where key = $1", [ghost, `${LEASE_MS} milliseconds`]);
  const orphanAt = performance.now();
  let orphanMs = NaN;
  while (performance.now() - orphanAt < 4 * ORPHAN_SWEEP_MS) {
    const { rows } = await app.pool.query("select locked_by from graphile_worker.jobs where key = $1", [ghost]);
    if (rows[0].locked_by === null) {
      orphanMs = performance.now() - orphanAt;
      break;
    }
    await sleep(20);
  }
  check(Number.isFinite(orphanMs), "recovery: an orphan lock was never released");
  await app.pool.query("select graphile_worker.remove_job($1)", [ghost]);
  await waitForNoJobs();
  for (const child of children) {
    const exited = once(child, "exit");
    child.disconnect();
    await exited;
  }
  check(extraStarts === 0, `recovery: ${extraStarts} job(s) started a third time`);
  return { trials: TRIALS, p50: percentile(times, 50), p95: percentile(times, 95), min: Math.min(...times), max: Math.max(...times), orphanMs };
}

let exitCode = 0;
try {
  console.error(`load average before: ${loadAverage()}`);
  // A fresh cluster and a cold process run the first phase slower, whichever it is: not reported.
  await throughputPhase("warm-up", { useEngine: false, total: N / 2 });
  const bare = await throughputPhase("bare limit (no engine)", { useEngine: false });
  const plain = await throughputPhase("graphile-worker", { useEngine: true });
  const serial = await throughputPhase("graphile-worker, queue_name = thread", { useEngine: true, serial: true });
  const batched = await throughputPhase("graphile-worker, localQueue + batched completion", { useEngine: true, localQueue: true });
  const rawInsert = await throughputPhase("the same, the accept inserting the job row itself (no add_job)", { useEngine: true, localQueue: true, raw: true });
  // The machine is shared: the limit measured again after the engine shows how far it drifted.
  const bareAgain = await throughputPhase("bare limit, again", { useEngine: false });
  const acceptCost = await acceptCostPhase();
  const idle = await idlePhase();
  const serialization = await serializationPhase();
  const serializationBatched = await serializationPhase({ localQueue: true });
  const transactional = await transactionalPhase();
  const cancel = await cancelPhase();
  const serverless = await serverlessPhase();
  const handBack = await handBackPhase();
  const recovery = await recoveryPhase();

  const bareMean = (bare.runsPerSecond + bareAgain.runsPerSecond) / 2;
  tables.push(
    [
      `### Throughput at C=${C}: ${N} runs of ${STEPS} steps (${STEP_MS} ms model + 1 UPDATE each), ${INSTANCES} instances × concurrency ${CONCURRENCY}`,
      "",
      "| case | runs/s | × bare (mean of both) | pickup p50 / p95 ms | run p50 / p95 ms | node CPU ms/run | PG CPU ms/run | our statements/run | engine statements/run | load avg |",
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
      ...[bare, plain, serial, batched, rawInsert, bareAgain].map(
        (r) =>
          `| ${r.label} | ${fmt(r.runsPerSecond, 0)} | ${fmt(r.runsPerSecond / bareMean, 2)} | ${fmt(r.pickupP50)} / ${fmt(r.pickupP95)} | ${fmt(r.wholeP50)} / ${fmt(r.wholeP95)} | ${fmt(r.nodeCpuMsPerRun, 2)} | ${fmt(r.pgCpuMsPerRun, 2)} | ${fmt(r.appStatementsPerRun, 2)} | ${fmt(r.engineStatementsPerRun, 2)} | ${r.load} |`,
      ),
    ].join("\n"),
    (() => {
      const variants = [plain, serial, batched, rawInsert];
      const kinds = [...new Set(variants.flatMap((v) => [...v.breakdown.keys()]))];
      const per = (v, k) => fmt(v.breakdown.get(k) ?? 0, 3);
      return [
        "### Engine statements per run, by kind",
        "",
        `| statement | ${variants.map((v) => v.label).join(" | ")} |`,
        `| --- | ${variants.map(() => "---").join(" | ")} |`,
        ...kinds.map((k) => `| \`${k.replace(/\|/g, "/")}\` | ${variants.map((v) => per(v, k)).join(" | ")} |`),
      ].join("\n");
    })(),
    [
      `### The enqueue's share: accepts with no worker running (${N / 8} at C=1, ${N} at C=${C})`,
      "",
      "| accept | C | accepts/s | PG CPU ms/accept |",
      "| --- | --- | --- | --- |",
      ...acceptCost.map((r) => `| ${r.label} | ${r.concurrency} | ${fmt(r.perSecond, 0)} | ${fmt(r.pgCpuMs, 2)} |`),
    ].join("\n"),
    [
      "### The rest",
      "",
      "| measurement | result |",
      "| --- | --- |",
      `| pickup, idle system (50 runs one at a time) p50 / p95 | ${fmt(idle.pickupP50)} / ${fmt(idle.pickupP95)} ms |`,
      `| idle cost, 2 instances × ${CONCURRENCY} workers, no jobs (poll ${POLL_MS} ms, lease heartbeat ${HEARTBEAT_MS} ms, reaper ${REAP_EVERY_MS} ms) | ${fmt(idle.idleStatementsPerSecond)} statements/s |`,
      `| recovery, kill -9 → handler starts on the survivor (lease ${LEASE_MS} ms, ${recovery.trials} trials) p50 / p95 (min-max) | ${fmt(recovery.p50, 0)} / ${fmt(recovery.p95, 0)} ms (${recovery.min}-${recovery.max}) |`,
      `| orphan lock (an id with no heartbeat, e.g. a pool killed before its lease row) released by the sweep (every ${ORPHAN_SWEEP_MS} ms) after | ${fmt(recovery.orphanMs, 0)} ms |`,
      ...[
        ["", serialization],
        [", localQueue + batched completion", serializationBatched],
      ].map(
        ([how, r]) =>
      `| per-key serialization (${r.jobs} runs on 10 threads, 2 instances${how}) | overlaps ${r.overlaps}, out of order ${r.outOfOrder}, max parallel ${r.maxRunning}, queue rows left ${r.queueRowsLeft} |`,
      ),
      `| transactional enqueue: job visible in its transaction / after rollback: jobs, runs | ${transactional.jobInside} / ${transactional.jobsAfterRollback}, ${transactional.runsAfterRollback} |`,
      `| cancel before start: queued job removed / cancelled run started / running job kept / its retries disabled | ${cancel.queuedRemoved} / ${cancel.cancelledStarted} / ${cancel.runningJobKept} / ${cancel.runningAttemptsSetToMax} |`,
      `| graceful hand-back (stop the executing instance mid-run): stop() took / continuation started on the other after / resumed at step / steps repeated / extra hops | ${fmt(handBack.stopMs)} ms / ${fmt(handBack.resumeMs)} ms / ${handBack.resumedFrom} / ${handBack.repeated} / ${handBack.extraHops} |`,
      `| serverless runOnce: ${serverless.jobs} due runs, one call | ${fmt(serverless.ms, 0)} ms (${fmt(serverless.msPerRun)} ms/run, serial), ${fmt(serverless.statementsPerRun, 2)} engine statements/run |`,
      `| serverless, a run of ${serverless.longSteps} steps (${STEP_MS * 5} ms each) through invocations of ${serverless.budgetMs} ms | ${serverless.invocations} invocations, ${serverless.repeated} steps repeated |`,
    ].join("\n"),
  );
  console.log(tables.join("\n\n"));
  console.log(`\nload average after: ${loadAverage()}`);
} catch (error) {
  console.error(error);
  exitCode = 1;
} finally {
  await app.pool.end().catch(() => {});
  await cluster.stop();
}
if (failures.length > 0) {
  console.error(`${failures.length} correctness check(s) failed`);
  exitCode = 1;
}
process.exit(exitCode);
