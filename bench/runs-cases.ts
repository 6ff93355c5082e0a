// The runs the report compares: each case measured on the limit, then on Dispatch, minutes apart
// at most. The headline is a new thread per run (a stateless API client); a chat's
// follow-up turn and the AG-UI door's resent history are measured beside it. The headline case
// is also measured on the durable limit (bench/durable-server.ts), between the two.
import { BENCH_STATE, conversationBody, type Conversation } from "./conversation";
import { measureFootprint } from "./footprint";
import { startNextLimit } from "./next-limit";
import type { RunsKey, RunsRow } from "./report";
import { measureRuns, type Pace, type Target, type Threading } from "./runs-phase";

type Timing = { warmupMs: number; windowMs: number; pacedWarmupMs: number; pacedWindowMs: number; pacedConcurrency: number; resentMessages: number };

type Case = { key: RunsRow["key"]; label: string; concurrency: number; pace: Pace; threading: Threading; warmupMs: number; windowMs: number };

/**
 * `database`: Dispatch's, to tell what its runs wrote there (bench/footprint.ts). `body(w, keep)`:
 * worker w's next request; `keep` when it goes to Dispatch, whose threads it continues.
 */
async function measureCase(c: Case, dispatch: Target, limit: Target, log: (line: string) => void, extra: { body?: (w: number, keep: boolean) => string; durable?: Target; database?: string } = {}): Promise<RunsRow> {
  const { body } = extra;
  const opts = { concurrency: c.concurrency, warmupMs: c.warmupMs, windowMs: c.windowMs, pace: c.pace, threading: c.threading, body: body && ((w: number) => body(w, true)) };
  log(`runs ${c.label}: limit`);
  // The limit reads the same requests, without continuing Dispatch's threads.
  const limitOpts = { ...opts, body: body && ((w: number) => body(w, false)) };
  const l = await measureRuns(limit, limitOpts);
  let durable: RunsRow["durable"];
  if (extra.durable) {
    log(`runs ${c.label}: durable limit`);
    durable = await measureRuns(extra.durable, limitOpts);
    if (durable.firstFailure) log(`a durable-limit run failed: ${durable.firstFailure}`);
  }
  log(`runs ${c.label}: Dispatch`);
  const measured = extra.database ? await measureFootprint(extra.database, () => measureRuns(dispatch, opts), c.label) : { result: await measureRuns(dispatch, opts), footprint: undefined };
  const d = measured.result;
  if (d.firstFailure) log(`a Dispatch run failed: ${d.firstFailure}`);
  return { key: c.key, label: c.label, dispatch: d, limit: l, ...(durable ? { durable } : {}), ...(measured.footprint ? { footprint: measured.footprint } : {}) };
}

/**
 * Pushes each case's row into `rows` as soon as it is measured; the durable limit runs the C=50
 * new-thread case. `cases`: the keys of the cases to measure (`--cases`), all when absent.
 */
export async function runsPhase(p: { plan: Timing; dispatch: Target; limit: Target; durable: Target; database: string; conversations: Conversation[]; rows: RunsRow[]; log: (line: string) => void; cases?: ReadonlySet<string> }): Promise<void> {
  const { plan } = p;
  const wanted = (key: RunsKey) => !p.cases || p.cases.has(key);
  const fast = { pace: "fast" as const, warmupMs: plan.warmupMs, windowMs: plan.windowMs };
  const cases: Case[] = [
    { key: "c1", label: "C=1, new thread", concurrency: 1, threading: "new", ...fast },
    { key: "c10", label: "C=10, new thread", concurrency: 10, threading: "new", ...fast },
    { key: "c50", label: "C=50, new thread", concurrency: 50, threading: "new", ...fast },
    { key: "c50-follow-up", label: "C=50, follow-up turn", concurrency: 50, threading: "follow-up", ...fast },
  ];
  for (const c of cases.filter((c) => wanted(c.key))) p.rows.push(await measureCase(c, p.dispatch, p.limit, p.log, c.key === "c50" ? { durable: p.durable, database: p.database } : {}));
  // POST /api/v1/ag-ui with a 200-message thread resent on every run; the limit reads the same body.
  const resent: Case = { key: "c50-ag-ui", label: `C=${p.conversations.length}, /api/v1/ag-ui, ${plan.resentMessages} messages resent`, concurrency: p.conversations.length, threading: "follow-up", ...fast };
  const body = (w: number, keep: boolean) => conversationBody(p.conversations[w]!, "Write me two hundred words, please. [[bench:fast]]", {}, keep);
  if (wanted(resent.key)) p.rows.push(await measureCase(resent, { ...p.dispatch, path: "/api/v1/ag-ui" }, p.limit, p.log, { body }));
  // The same with shared state sent, and 10 update_state calls in one step (10 STATE_DELTA events)
  // before the answer: first a state of a few bytes (what the calls and their extra model step
  // cost), then ~20 KB (what the state's size adds): #40's target compares the second with no state.
  const stateful = (key: RunsKey, size: string, state: Record<string, unknown>) =>
    measureCase({ ...resent, key, label: `${resent.label}, ${size} state, 10 deltas` }, { ...p.dispatch, path: "/api/v1/ag-ui" }, p.limit, p.log, {
      body: (w, keep) => conversationBody(p.conversations[w]!, "Write me two hundred words, please. [[bench:state]]", state, keep),
    });
  if (wanted("c50-ag-ui-small-state")) p.rows.push(await stateful("c50-ag-ui-small-state", "12-byte", { progress: 0 }));
  if (wanted("c50-ag-ui-state")) p.rows.push(await stateful("c50-ag-ui-state", "20 KB", BENCH_STATE));
  const paced: Case = {
    key: "c200-paced",
    label: `C=${plan.pacedConcurrency}, 20 ms/token, new thread`,
    concurrency: plan.pacedConcurrency,
    threading: "new",
    pace: "slow",
    warmupMs: plan.pacedWarmupMs,
    windowMs: plan.pacedWindowMs,
  };
  if (wanted(paced.key)) p.rows.push(await measureCase(paced, p.dispatch, p.limit, p.log));
}

/** Dispatch under plain `next start` (every route through Next, as on Vercel) against a bare Next.js route handler. */
export async function vercelPhase(p: { plan: Timing; dispatch: Target; modelUrl: string; port: number; rows: RunsRow[]; log: (line: string) => void }): Promise<void> {
  const limit = await startNextLimit(p.port, p.modelUrl);
  const limitTarget: Target = { port: limit.port, tree: limit.tree, path: "/runs", headers: {} };
  try {
    // Both servers are fresh: their first runs load and compile their routes.
    for (const t of [limitTarget, p.dispatch]) await measureRuns(t, { concurrency: 5, warmupMs: 0, windowMs: 2_000, pace: "fast" });
    const c: Case = { key: "vercel", label: "C=50, new thread, `next start` (Vercel path) vs bare Next.js route handler", concurrency: 50, threading: "new", pace: "fast", warmupMs: p.plan.warmupMs, windowMs: p.plan.windowMs };
    p.rows.push(await measureCase(c, p.dispatch, limitTarget, p.log));
  } finally {
    await limit.stop();
  }
}
