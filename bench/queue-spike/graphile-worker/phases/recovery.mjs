// Recovery of a killed executor's run, through our lease.
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { EventEmitter, once } from "node:events";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { LEASE_MS, ORPHAN_SWEEP_MS } from "../lease.mjs";
import { percentile } from "../lib.mjs";

/**
 * Recovery: two worker processes; the one that takes the job (whose first attempt never returns)
 * is killed with SIGKILL; kill → the job's handler starting on the survivor. Then a fresh process
 * replaces the dead one, so every trial starts with two.
 */
export async function recoveryPhase(h) {
  const { TRIALS, app, cluster, check, waitForNoJobs } = h;
  const children = new Set();
  const messages = new EventEmitter();
  const spawn = async () => {
    const child = fork(new URL("../child.mjs", import.meta.url), [cluster.url], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
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
