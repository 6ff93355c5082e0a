// A worker instance in its own process, for the recovery measurement (spike.mjs, part 4).
//   victim:   takes one job of the `recovery` queue and blocks in its handler forever, until the
//             parent kill -9s this process;
//   survivor: works the queue only while the parent says so (IPC "work" / "idle"), so the victims
//             take the first attempts; its handler completes at once.
// Each handler start is announced with NOTIFY spike_recovery, so the parent times it on its own clock.
//
// With `fast` (the fast path, ours, not pg-boss's): a victim holds a session advisory lock for its
// life, on a connection of its own, and records each attempt it executes; the survivor sweeps every
// SWEEP_MS for active attempts whose executor's lock is free (its session ended: the process died)
// and fails exactly that attempt, which pg-boss then retries at once.
import { PgBoss } from "pg-boss";
import pg from "pg";
import { bossOptions, RECOVERY_QUEUE } from "./lib/engine.mjs";

const [role, url, mode] = process.argv.slice(2);
const LIVENESS_LOCK = 4207; // advisory lock namespace: (LIVENESS_LOCK, executor pid)
const SWEEP_MS = 250;
const pool = new pg.Pool({ connectionString: url, max: 2 });
const boss = new PgBoss(bossOptions(url, { instanceName: `${role}-${process.pid}` }));
boss.on("error", (e) => console.error(`[${role} ${process.pid}]`, e.message));
await boss.start();

const announce = (job) =>
  pool.query("select pg_notify('spike_recovery', $1)", [JSON.stringify({ role, pid: process.pid, jobId: job.id, retryCount: job.retryCount })]);

// A retried job wakes no one (NOTIFY is sent on insert only): the survivor finds it by polling, so
// both poll intervals are at pg-boss's floor.
const workOptions = { localConcurrency: role === "victim" ? 1 : 4, pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 0.5 };
if (role === "victim") {
  if (mode === "fast") {
    const liveness = new pg.Client({ connectionString: url });
    await liveness.connect();
    await liveness.query("select pg_advisory_lock($1, $2)", [LIVENESS_LOCK, process.pid]);
  }
  await boss.work(RECOVERY_QUEUE, workOptions, async ([job]) => {
    if (mode === "fast") await pool.query("insert into executions (job_id, attempt, executor) values ($1, $2, $3)", [job.id, job.retryCount, process.pid]);
    await announce(job);
    await new Promise(() => {}); // a run that never ends on its own: only kill -9 stops it
  });
  process.send("ready");
} else {
  let workId = null;
  if (mode === "fast") {
    const sweep = async () => {
      const { rows } = await pool.query(
        `select e.job_id as id, e.attempt as "retryCount"
           from executions e join pgboss.job j on j.id = e.job_id and j.retry_count = e.attempt
          where j.name = $1 and j.state = 'active' and pg_try_advisory_xact_lock($2, e.executor)`,
        [RECOVERY_QUEUE, LIVENESS_LOCK],
      );
      if (rows.length === 0) return;
      // Fenced by attempt: a job another sweeper already failed and a worker took again is left alone.
      await boss.fail(RECOVERY_QUEUE, rows, { message: "executor died" });
      if (workId) boss.notifyWorker(workId);
    };
    const loop = () => sweep().catch((e) => console.error("[sweep]", e.message)).finally(() => setTimeout(loop, SWEEP_MS).unref());
    loop();
  }
  process.on("message", async (message) => {
    if (message === "work") workId = await boss.work(RECOVERY_QUEUE, workOptions, async ([job]) => void (await announce(job)));
    if (message === "idle") await boss.offWork(RECOVERY_QUEUE);
    if (message === "stop") {
      await boss.stop({ graceful: false });
      await pool.end();
    }
    process.send(`${message}:ok`, () => message === "stop" && process.exit(0));
  });
  process.send("ready");
}
