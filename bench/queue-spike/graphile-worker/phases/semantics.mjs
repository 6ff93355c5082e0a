// What the engine guarantees for our runs: order within a thread, transactional enqueue, cancel
// before start, hand-back at a step boundary.
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { STEP_MS } from "../lib.mjs";

/** Jobs of one thread run one at a time and in order, threads in parallel, across both instances. */
export async function serializationPhase(h, { localQueue = false } = {}) {
  const { app, check, startInstances, waitForNoJobs } = h;
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
  h.runHandler = async ({ runId }) => {
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
export async function transactionalPhase(h) {
  const { app, check } = h;
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
export async function cancelPhase(h) {
  const { app, check, startInstances, waitForNoJobs } = h;
  const engine = await startInstances();
  const [busy, cancelled, later] = [randomUUID(), randomUUID(), randomUUID()];
  const started = new Set();
  let releaseBusy;
  const busyReleased = new Promise((resolve) => (releaseBusy = resolve));
  let busyStarted;
  const busyStartedPromise = new Promise((resolve) => (busyStarted = resolve));
  let laterDone;
  const laterDonePromise = new Promise((resolve) => (laterDone = resolve));
  h.runHandler = async ({ runId }) => {
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
 * Graceful hand-back (what SIGTERM would do): the instance executing a long run stops; the run's
 * handler sees the pool's abort signal at its next step boundary, enqueues its continuation (same
 * job key, the step to resume from) and returns; the other instance continues at once. A handler
 * that threw instead would be retried only after graphile-worker's backoff (e^attempts seconds).
 */
export async function handBackPhase(h) {
  const { app, check, startInstances, waitForNoJobs } = h;
  const engine = await startInstances({ abortAfterMs: 0 });
  const LONG_STEPS = 40;
  const runId = randomUUID();
  const stepsDone = [];
  const starts = [];
  let finished;
  const finishedPromise = new Promise((resolve) => (finished = resolve));
  let firstStarted;
  const firstStartedPromise = new Promise((resolve) => (firstStarted = resolve));
  h.runHandler = async ({ fromStep = 1 }, helpers) => {
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
  check(resumed !== undefined && starts.at(-1).lockedBy !== lockedBy, `hand-back: the run did not end on the other instance (${starts.length} starts)`);
  check(repeated === 0 && new Set(stepsDone).size === LONG_STEPS, `hand-back: ${repeated} step(s) repeated, ${new Set(stepsDone).size} of ${LONG_STEPS} done`);
  return { stopMs, resumeMs: resumed ? resumed.at - stopAt : NaN, resumedFrom: resumed?.fromStep, repeated, extraHops };
}
