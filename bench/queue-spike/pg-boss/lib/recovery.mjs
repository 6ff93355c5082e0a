// Part 4: kill -9 of the process executing a job → the job's handler starting on a survivor.
// Victims (child processes) each take one job and block; a survivor (another child process) is
// working the queue when they die. Each victim is killed after a random delay, so the kill falls
// anywhere in its heartbeat cycle (the worker touches its job every HEARTBEAT/2 s).
import { fork } from "node:child_process";
import { randomInt, randomUUID } from "node:crypto";
import { once } from "node:events";
import path from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { HEARTBEAT_SECONDS, RECOVERY_QUEUE } from "./engine.mjs";
import { waitFor } from "./measure.mjs";

const child = path.join(import.meta.dirname, "..", "recovery-child.mjs");

function spawn(role, url, mode) {
  const proc = fork(child, [role, url, mode], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const ready = once(proc, "message");
  return { proc, ready };
}

async function ask(proc, message) {
  const reply = once(proc, "message");
  proc.send(message);
  const [answer] = await reply;
  if (answer !== `${message}:ok`) throw new Error(`the survivor answered ${answer} to ${message}`);
}

/**
 * Returns the kill → restart times (ms) of `trials` jobs, run `perRound` at a time. mode "heartbeat":
 * pg-boss alone (a lost heartbeat, found by its monitor pass); "fast": our liveness lock and sweeper
 * (recovery-child.mjs) in front of it.
 */
export async function measureRecovery({ url, boss, trials, perRound, mode }) {
  const listener = new pg.Client({ connectionString: url });
  await listener.connect();
  const starts = []; // { role, pid, jobId, retryCount, at }
  listener.on("notification", (n) => starts.push({ ...JSON.parse(n.payload), at: performance.now() }));
  await listener.query("listen spike_recovery");
  await listener.query("create table if not exists executions (job_id uuid, attempt int, executor int not null, primary key (job_id, attempt))");

  const survivor = spawn("survivor", url, mode);
  await survivor.ready;
  const recoveries = [];
  const retryCounts = [];
  try {
    for (let done = 0; done < trials; done += perRound) {
      const round = Math.min(perRound, trials - done);
      await ask(survivor.proc, "idle");
      const victims = Array.from({ length: round }, () => spawn("victim", url, mode));
      await Promise.all(victims.map((v) => v.ready));
      const jobIds = [];
      for (let i = 0; i < round; i++) jobIds.push(await boss.send(RECOVERY_QUEUE, { runId: randomUUID() }));
      const firstStart = (jobId) => starts.find((s) => s.jobId === jobId && s.role === "victim");
      await waitFor("every victim to start its job", () => jobIds.every(firstStart));
      await ask(survivor.proc, "work");

      const killedAt = new Map();
      await Promise.all(
        jobIds.map(async (jobId) => {
          const { pid } = firstStart(jobId);
          await new Promise((r) => setTimeout(r, randomInt(0, mode === "fast" ? 1000 : (HEARTBEAT_SECONDS / 2) * 1000)));
          process.kill(pid, "SIGKILL");
          killedAt.set(jobId, performance.now());
        }),
      );
      const restart = (jobId) => starts.find((s) => s.jobId === jobId && s.role === "survivor");
      await waitFor("the survivor to restart every killed job", () => jobIds.every(restart), 60_000);
      for (const jobId of jobIds) {
        recoveries.push(restart(jobId).at - killedAt.get(jobId));
        retryCounts.push(restart(jobId).retryCount);
      }
      await Promise.all(victims.map((v) => (v.proc.exitCode === null && v.proc.signalCode === null ? once(v.proc, "exit") : null)));
    }
    // Every job ran exactly twice: once on its victim, once on the survivor.
    const perJob = new Map();
    for (const s of starts) perJob.set(s.jobId, (perJob.get(s.jobId) ?? 0) + 1);
    const doubles = [...perJob.values()].every((n) => n === 2);
    return { recoveries, retryCounts, everyJobRanTwice: doubles && perJob.size === trials };
  } finally {
    await ask(survivor.proc, "stop").catch(() => {});
    survivor.proc.kill("SIGKILL");
    await listener.end();
  }
}
