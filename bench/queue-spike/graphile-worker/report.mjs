// The spike's output: markdown tables of every phase's figures.
import { HEARTBEAT_MS, LEASE_MS, ORPHAN_SWEEP_MS, REAP_EVERY_MS } from "./lease.mjs";
import { STEPS, STEP_MS } from "./lib.mjs";

const fmt = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");

export function report(h, r) {
  const { N, C, INSTANCES, CONCURRENCY, POLL_MS } = h;
  const { bare, plain, serial, batched, rawInsert, bareAgain, acceptCost, idle, serialization, serializationBatched, transactional, cancel, serverless, handBack, recovery } = r;
  const bareMean = (bare.runsPerSecond + bareAgain.runsPerSecond) / 2;
  return [
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
  ].join("\n\n");
}
