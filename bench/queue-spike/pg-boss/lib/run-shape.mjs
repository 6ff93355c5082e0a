// Dispatch's run shape, reduced to what a job engine sees: a run is a row, executing it is S steps,
// each a short await (the model, a timer of a few ms) and one UPDATE (the event-log write).
import { setTimeout as sleep } from "node:timers/promises";
import { performance } from "node:perf_hooks";

export const STEPS = 5;
export const STEP_MS = 5;

export const RUNS_SCHEMA = `
  create table runs (
    id uuid primary key,
    thread_id text not null,
    steps_done int not null default 0,
    state text not null default 'queued'
  )`;

export function acceptRunBare(pool, runId, threadId) {
  return pool.query("insert into runs (id, thread_id) values ($1, $2)", [runId, threadId]);
}

export async function executeRun(pool, runId) {
  for (let step = 1; step <= STEPS; step++) {
    await sleep(STEP_MS);
    await pool.query("update runs set steps_done = $2::int, state = case when $2::int = $3::int then 'done' else 'running' end where id = $1", [runId, step, STEPS]);
  }
}

/**
 * Tracks what happened to each run in this process: when it was accepted, when its handler
 * started (pickup), how many times it was executed (a duplicate is a failure) and when it ended.
 */
export class RunLedger {
  #runs = new Map();

  accepted(runId) {
    let resolve;
    const finished = new Promise((r) => (resolve = r));
    this.#runs.set(runId, { acceptedAt: performance.now(), startedAt: 0, executions: 0, resolve, finished });
    return finished;
  }

  started(runId) {
    const run = this.#runs.get(runId);
    if (!run) throw new Error(`a handler started a run this process never accepted: ${runId}`);
    run.executions += 1;
    if (run.executions === 1) run.startedAt = performance.now();
  }

  finished(runId) {
    this.#runs.get(runId).resolve();
  }

  pickupsMs() {
    return [...this.#runs.values()].filter((r) => r.startedAt).map((r) => r.startedAt - r.acceptedAt);
  }

  duplicates() {
    return [...this.#runs.values()].filter((r) => r.executions > 1).length;
  }

  get size() {
    return this.#runs.size;
  }
}
