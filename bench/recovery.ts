// Durable runs: how long a run waits for another instance when the one executing it dies
// (kill -9) or is told to stop (SIGTERM). Each trial starts a fresh instance B on the bench's
// database, streams a paced run on it, follows the run from instance A, signals B once the
// follower has seen a few events, and times what the follower sees next.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { HEARTBEAT_MS } from "../server/kernel/runs";
import { percentile } from "./load";
import { runBody } from "./runs-phase";
import { startDispatch, type DispatchEnv, type Server } from "./servers";

// A run is taken for abandoned after three missed heartbeats, and looked for on every heartbeat
// (server/runs/recovery.ts STALE_AFTER_MS, SWEEP_EVERY_MS).
export const LEASE_MS = 3 * HEARTBEAT_MS;
export { HEARTBEAT_MS };

export type RecoverySignal = "SIGKILL" | "SIGTERM";

export type RecoveryTrial = {
  /** Signal → the first event of the execution that took the run over, as A's follower received it. */
  toNewExecutorMs: number;
  /** Signal → the run's terminal event at A's follower. */
  toCompletedMs: number;
  /** Signal → B's process gone. */
  exitMs: number;
  /** kill -9 only: what was left of the lease when B died (its last heartbeat + the lease − the kill). */
  leaseLeftMs: number;
};

export type RecoveryFigures = {
  signal: RecoverySignal;
  trials: RecoveryTrial[];
  /** One line per trial that did not end as it must (run id and what the follower saw). */
  failures: string[];
  toNewExecutor: { p50: number; p95: number };
  toCompleted: { p50: number; p95: number };
  exit: { p50: number; p95: number };
  /** kill -9: the new executor's first event after the lease ran out (the sweep's wait, the claim, the log's replay). */
  pickup: { p50: number; p95: number };
};

type Frame = { id: number; type: string; messageId?: string; at: number };

// The follower is on A before B is signalled; a few events in, the answer is well under way
// (200 tokens at 20 ms each), so B always stops in the middle of it.
const EVENTS_BEFORE_SIGNAL = 8;
const TRIAL_TIMEOUT_MS = 120_000;

/** Reads an SSE response, calling `onFrame` with each event and the time it arrived. */
async function readFrames(res: Response, onFrame: (f: Frame) => void): Promise<void> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    const at = performance.now();
    buffer += value;
    for (let cut = buffer.indexOf("\n\n"); cut >= 0; cut = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let id = NaN;
      let data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("id: ")) id = Number(line.slice(4));
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      if (!data) continue;
      const event = JSON.parse(data) as { type: string; messageId?: string };
      onFrame({ id, type: event.type, messageId: event.messageId, at });
    }
  }
}

function waitFor(cond: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const check = () => {
      if (cond()) return resolve();
      if (performance.now() > deadline) return reject(new Error(`${what} within ${timeoutMs / 1000} s`));
      setTimeout(check, 5);
    };
    check();
  });
}

/**
 * What a trial must show: one unbroken log (ids 1..n, one RUN_STARTED, RUN_FINISHED last), the
 * answer B left half-streamed closed, and a second, whole answer. Returns the index of the first
 * event written by the new execution (the end of B's answer), or a reason it is not there.
 */
function check(frames: Frame[]): number | string {
  if (frames.some((f, i) => f.id !== i + 1)) return `event ids not 1..n: ${frames.map((f) => f.id).join(",")}`;
  if (frames.filter((f) => f.type === "RUN_STARTED").length !== 1) return "not exactly one RUN_STARTED";
  if (frames.at(-1)?.type !== "RUN_FINISHED") return `ends with ${frames.at(-1)?.type ?? "nothing"}, not RUN_FINISHED`;
  const starts = frames.filter((f) => f.type === "TEXT_MESSAGE_START");
  if (starts.length !== 2) return `${starts.length} answers, expected the cut one and a whole one`;
  // B never ends its answer (it died or handed the run back mid-stream): its end is the new execution's first event.
  const end = frames.findIndex((f) => f.type === "TEXT_MESSAGE_END" && f.messageId === starts[0]!.messageId);
  if (end < 0 || frames[end - 1]?.type !== "TEXT_MESSAGE_CONTENT") return "the cut answer was not closed right after its last content";
  return end;
}

/** When the run's executor last reported, in epoch ms. */
async function lastHeartbeat(databaseUrl: string, runId: string): Promise<number> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ at: number }>("select extract(epoch from heartbeat_at) * 1000 as at from runs where run_id = $1", [runId]);
    return Number(rows[0]?.at ?? NaN);
  } finally {
    await db.end();
  }
}

async function trial(opts: { e: DispatchEnv; survivor: Server; apiKey: string; port: number; signal: RecoverySignal }): Promise<RecoveryTrial | string> {
  const headers = { authorization: `Bearer ${opts.apiKey}` };
  const b = await startDispatch(opts.port, opts.e);
  const body = runBody(randomUUID(), "slow");
  const { runId } = JSON.parse(body) as { runId: string };
  try {
    const started = await fetch(`${b.url}/api/v1/agent/runs`, { method: "POST", headers: { ...headers, "content-type": "application/json", accept: "text/event-stream" }, body });
    if (started.status !== 200) return `run ${runId}: POST on B answered ${started.status}`;
    let requesterSeen = 0;
    // The requester reads on until B goes away.
    const requester = readFrames(started, () => requesterSeen++).catch(() => undefined);
    await waitFor(() => requesterSeen >= 2, "the run did not start streaming on B", 30_000);

    const follow = await fetch(`${opts.survivor.url}/api/v1/agent/runs/${encodeURIComponent(runId)}/events`, { headers: { ...headers, accept: "text/event-stream" } });
    if (follow.status !== 200) return `run ${runId}: GET events on A answered ${follow.status}`;
    const frames: Frame[] = [];
    // Settles with the error that cut the follower's stream, if one did (handled from the start, as it may come before the race below).
    const followed = readFrames(follow, (f) => frames.push(f)).then(
      () => null,
      (err: unknown) => err,
    );
    await waitFor(() => frames.length >= EVENTS_BEFORE_SIGNAL, "the follower on A did not see the run's first events", 30_000);

    const signalledAt = performance.now();
    const signalledAtWall = Date.now();
    process.kill(b.pid, opts.signal);
    let exitedAt = NaN;
    void b.exited.then(() => (exitedAt = performance.now()));
    // Read before the lease runs out and a new execution reports: a killed executor's last heartbeat.
    const heartbeatAt = opts.signal === "SIGKILL" ? await b.exited.then(() => lastHeartbeat(opts.e.databaseUrl, runId)) : NaN;
    let timer: NodeJS.Timeout | undefined;
    const cut = await Promise.race([followed, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`the follower's stream was still open ${TRIAL_TIMEOUT_MS / 1000} s after ${opts.signal}`)), TRIAL_TIMEOUT_MS)))]).finally(() => clearTimeout(timer));
    if (cut) return `run ${runId}: the follower's stream on A broke after ${frames.length} events: ${cut instanceof Error ? cut.message : String(cut)}`;
    await b.exited;
    await requester;
    const leaseLeftMs = heartbeatAt + LEASE_MS - signalledAtWall;

    const first = check(frames);
    if (typeof first === "string") return `run ${runId}: ${first}`;
    const status = (await (await fetch(`${opts.survivor.url}/api/v1/agent/runs/${encodeURIComponent(runId)}`, { headers })).json()) as { status: string };
    if (status.status !== "completed") return `run ${runId}: ${status.status} after its follower's stream ended`;
    return { toNewExecutorMs: frames[first]!.at - signalledAt, toCompletedMs: frames.at(-1)!.at - signalledAt, exitMs: exitedAt - signalledAt, leaseLeftMs };
  } catch (err) {
    return `run ${runId}: ${err instanceof Error ? err.message : String(err)}`;
  } finally {
    await b.stop();
  }
}

const p = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
};

/** `trials` trials in a row, each on a fresh B; A (`survivor`) is the instance that takes the runs over. */
export async function measureRecovery(opts: {
  e: DispatchEnv;
  survivor: Server;
  apiKey: string;
  port: number;
  signal: RecoverySignal;
  trials: number;
  log: (line: string) => void;
}): Promise<RecoveryFigures> {
  const trials: RecoveryTrial[] = [];
  const failures: string[] = [];
  for (let i = 0; i < opts.trials; i++) {
    const t = await trial(opts);
    if (typeof t === "string") {
      failures.push(t);
      opts.log(`recovery ${opts.signal} trial ${i + 1}: FAILED ${t}`);
    } else {
      trials.push(t);
      const lease = Number.isFinite(t.leaseLeftMs) ? ` (lease left at the kill ${t.leaseLeftMs.toFixed(0)} ms)` : "";
      opts.log(`recovery ${opts.signal} trial ${i + 1}: new executor after ${t.toNewExecutorMs.toFixed(0)} ms${lease}, completed after ${t.toCompletedMs.toFixed(0)} ms, B exited after ${t.exitMs.toFixed(0)} ms`);
    }
  }
  return {
    signal: opts.signal,
    trials,
    failures,
    toNewExecutor: p(trials.map((t) => t.toNewExecutorMs)),
    toCompleted: p(trials.map((t) => t.toCompletedMs)),
    exit: p(trials.map((t) => t.exitMs)),
    pickup: p(trials.filter((t) => Number.isFinite(t.leaseLeftMs)).map((t) => t.toNewExecutorMs - t.leaseLeftMs)),
  };
}
