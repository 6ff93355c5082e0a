// Parts 5-8: what Dispatch needs of the engine besides speed, each shown working and checked.
import { PgBoss } from "pg-boss";
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { bossOptions, onClient, PARKED_QUEUE, RUNS_QUEUE, SERVERLESS_QUEUE, THREADS_QUEUE } from "./engine.mjs";
import { check, percentile, waitFor } from "./measure.mjs";
import { acceptRunBare, executeRun, RunLedger, STEPS } from "./run-shape.mjs";

const jobsOf = async (app, runId) =>
  Number((await app.query("select count(*) from pgboss.job where data->>'runId' = $1", [runId])).rows[0].count);
const runExists = async (app, runId) => (await app.query("select 1 from runs where id = $1", [runId])).rowCount === 1;

/** 5. Same key (thread) one at a time and in order, other keys in parallel: a key_strict_fifo queue. */
export async function perKeySerialization({ app, instances, threads = 12, runsPerThread = 6 }) {
  const activeThreads = new Set();
  const startOrder = new Map();
  const endedAt = new Map(); // `${thread}/${seq}` → ms
  const handoffs = [];
  let overlaps = 0;
  let parallel = 0;
  let maxParallel = 0;
  const ledger = new RunLedger();
  const handler = async ([job]) => {
    const { runId, thread, seq } = job.data;
    if (activeThreads.has(thread)) overlaps++;
    activeThreads.add(thread);
    maxParallel = Math.max(maxParallel, ++parallel);
    const previousEnd = endedAt.get(`${thread}/${seq - 1}`);
    if (previousEnd) handoffs.push(performance.now() - previousEnd);
    startOrder.set(thread, [...(startOrder.get(thread) ?? []), seq]);
    ledger.started(runId);
    await executeRun(app, runId);
    parallel--;
    activeThreads.delete(thread);
    endedAt.set(`${thread}/${seq}`, performance.now());
    ledger.finished(runId);
  };
  // notifyPollingIntervalSeconds at its floor: a NOTIFY comes only when a job is inserted, so a
  // thread's next run, already queued, is found by the next poll after its predecessor completes.
  const workIds = await Promise.all(
    instances.map((boss) => boss.work(THREADS_QUEUE, { localConcurrency: 10, pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 0.5 }, handler)),
  );
  const finished = [];
  await Promise.all(
    Array.from({ length: threads }, async (_, t) => {
      const thread = `thread-${t}`;
      for (let seq = 0; seq < runsPerThread; seq++) {
        const runId = randomUUID();
        finished.push(ledger.accepted(runId));
        await acceptRunBare(app, runId, thread);
        await instances[0].send(THREADS_QUEUE, { runId, thread, seq }, { singletonKey: thread });
      }
    }),
  );
  await Promise.all(finished);
  await Promise.all(instances.map((boss, i) => boss.offWork(THREADS_QUEUE, { id: workIds[i] })));
  const inOrder = [...startOrder.values()].every((seqs) => seqs.every((s, i) => s === i)) && startOrder.size === threads;
  check("per key: no two runs of one thread overlap", overlaps === 0, `${overlaps} overlaps`);
  check("per key: each thread's runs start in the order they were enqueued", inOrder);
  check("per key: different threads run in parallel", maxParallel > 1, `up to ${maxParallel} at once`);
  check("per key: every run executed exactly once", ledger.duplicates() === 0 && handoffs.length === threads * (runsPerThread - 1));
  return { maxParallel, handoffP50: percentile(handoffs, 50), handoffP95: percentile(handoffs, 95) };
}

/** 5b. A failed job holds its key: the thread is stuck until the failed job is retried or deleted. */
export async function failedJobBlocksKey({ boss }) {
  const thread = `poison-${randomUUID()}`;
  const failedId = await boss.send(THREADS_QUEUE, { poison: true }, { singletonKey: thread, retryLimit: 0 });
  const [job] = await boss.fetch(THREADS_QUEUE);
  check("blocked key: the poisoned job is the one fetched", job?.id === failedId);
  await boss.fail(THREADS_QUEUE, job.id, { message: "run failed" });
  const nextId = await boss.send(THREADS_QUEUE, { next: true }, { singletonKey: thread });
  const blocked = await boss.getBlockedKeys(THREADS_QUEUE);
  const fetched = await boss.fetch(THREADS_QUEUE);
  check("blocked key: after a terminal failure the thread's next job cannot be fetched", blocked.includes(thread) && (fetched ?? []).length === 0);
  await boss.deleteJob(THREADS_QUEUE, failedId);
  const [unblocked] = await boss.fetch(THREADS_QUEUE);
  check("blocked key: deleting the failed job releases the key", unblocked?.id === nextId);
  await boss.complete(THREADS_QUEUE, nextId);
}

/** 6. Enqueue in the same transaction as our insert: through pg-boss's API, and in one SQL function. */
export async function transactionalEnqueue({ app, boss }) {
  // (a) send() on our connection, inside our transaction
  for (const outcome of ["rollback", "commit"]) {
    const runId = randomUUID();
    const client = await app.connect();
    try {
      await client.query("begin");
      await acceptRunBare(client, runId, "tx-thread");
      await boss.send(PARKED_QUEUE, { runId }, { db: onClient(client) });
      await client.query(outcome);
    } finally {
      client.release();
    }
    const expected = outcome === "commit" ? 1 : 0;
    check(`transactional enqueue (API, ${outcome}): run row and job both ${expected ? "present" : "absent"}`, (await jobsOf(app, runId)) === expected && (await runExists(app, runId)) === !!expected);
  }
  // (b) one statement, our SQL function writing the run and the job (the throughput run executes these)
  const runId = randomUUID();
  const client = await app.connect();
  try {
    await client.query("begin");
    await client.query("select spike_accept_run($1, 'tx-thread', $2)", [runId, RUNS_QUEUE]);
    await client.query("rollback");
  } finally {
    client.release();
  }
  check("transactional enqueue (SQL function, rollback): neither run nor job", (await jobsOf(app, runId)) === 0 && !(await runExists(app, runId)));
}

/** 7. A queued job cancelled before any worker takes it never runs. */
export async function cancelBeforeStart({ boss }) {
  const cancelledRun = randomUUID();
  const keptRun = randomUUID();
  const cancelledId = await boss.send(PARKED_QUEUE, { runId: cancelledRun });
  const result = await boss.cancel(PARKED_QUEUE, cancelledId);
  const keptId = await boss.send(PARKED_QUEUE, { runId: keptRun });
  const ran = [];
  const workId = await boss.work(PARKED_QUEUE, { localConcurrency: 2, pollingIntervalSeconds: 0.5 }, async ([job]) => void ran.push(job.data.runId));
  await waitFor("the job sent after the cancelled one to run", () => ran.includes(keptRun));
  await boss.offWork(PARKED_QUEUE, { id: workId });
  const [cancelled] = await boss.findJobs(PARKED_QUEUE, { id: cancelledId });
  const [kept] = await boss.findJobs(PARKED_QUEUE, { id: keptId });
  check("cancel before start: cancel() affected the queued job", result.affected === 1);
  check("cancel before start: the cancelled job never ran and stays cancelled", !ran.includes(cancelledRun) && cancelled?.state === "cancelled");
  const again = await boss.cancel(PARKED_QUEUE, keptId);
  check("cancel after completion is a no-op", again.affected === 0 && kept?.state === "completed");
}

/** 7b. Cancelling a running job: the handler learns of it through the job's AbortSignal, at the next heartbeat touch. */
export async function cancelWhileRunning({ boss }) {
  let started;
  let cancelledAt = 0;
  let abortedAfterMs = null;
  const running = new Promise((resolve) => (started = resolve));
  const workId = await boss.work(PARKED_QUEUE, { pollingIntervalSeconds: 0.5 }, async ([job]) => {
    started(job.id);
    await new Promise((resolve) => job.signal.addEventListener("abort", resolve, { once: true }));
    abortedAfterMs = performance.now() - cancelledAt;
  });
  const id = await boss.send(PARKED_QUEUE, { runId: randomUUID() });
  await running;
  cancelledAt = performance.now();
  const result = await boss.cancel(PARKED_QUEUE, id);
  await waitFor("the running handler's AbortSignal", () => abortedAfterMs !== null, 30_000);
  await boss.offWork(PARKED_QUEUE, { id: workId });
  const [job] = await boss.findJobs(PARKED_QUEUE, { id });
  check("cancel while running: the job is cancelled and the handler's AbortSignal fired", result.affected === 1 && job?.state === "cancelled");
  return { abortedAfterMs };
}

/**
 * 8. Serverless: no long-lived worker. One "invocation" (a cron or queue-triggered function) makes
 * a PgBoss without background work, claims due jobs with fetch(), runs and completes them, and
 * returns when none is left or its time budget is spent; supervise() is its explicit maintenance.
 */
export async function serverlessDrain({ app, boss, url, jobs = 40, budgetMs = 20_000 }) {
  const runIds = Array.from({ length: jobs }, () => randomUUID());
  for (const runId of runIds) await acceptRunBare(app, runId, "serverless");
  await boss.insert(SERVERLESS_QUEUE, runIds.map((runId) => ({ data: { runId } })));

  const executed = new Map();
  const invocationStarted = performance.now();
  const oneShot = new PgBoss(bossOptions(url, { supervise: false, migrate: false, registerInstance: false, useListenNotify: false, max: 4 }));
  await oneShot.start();
  const startedMs = performance.now() - invocationStarted;
  let fetches = 0;
  while (performance.now() - invocationStarted < budgetMs) {
    const batch = await oneShot.fetch(SERVERLESS_QUEUE, { batchSize: 10 });
    fetches++;
    if (batch.length === 0) break;
    await Promise.all(
      batch.map(async (job) => {
        executed.set(job.data.runId, (executed.get(job.data.runId) ?? 0) + 1);
        await executeRun(app, job.data.runId);
      }),
    );
    await oneShot.complete(SERVERLESS_QUEUE, batch.map(({ id, retryCount }) => ({ id, retryCount })));
  }
  await oneShot.supervise(SERVERLESS_QUEUE);
  await oneShot.stop({ graceful: false, close: true });
  const invocationMs = performance.now() - invocationStarted;
  const { rows } = await app.query("select count(*)::int as n from runs where id = any($1) and steps_done = $2", [runIds, STEPS]);
  check("serverless: one invocation ran every due job exactly once, then returned", rows[0].n === jobs && [...executed.values()].every((n) => n === 1) && executed.size === jobs);
  return { jobs, startedMs, invocationMs, fetches };
}
