// The streams phase: memory held per open stream, for the limit and for Dispatch, in-flight
// runs whose model stalled and idle followers of a few stalled runs.
import { randomUUID } from "node:crypto";
import pg from "pg";
import type { StreamsRow } from "./report";
import { measureRuns, runBody, type Target } from "./runs-phase";
import type { DispatchServer, MeasuredServer, Server } from "./servers";
import { measureStreams } from "./streams";

/** A running Dispatch and the database it uses (read to wait for its runs to end). */
export type Started = { server: DispatchServer; databaseUrl: string };

export type StreamsPlan = {
  levels: number[];
  startLimit: () => Promise<MeasuredServer>;
  startDispatch: () => Promise<Started>;
  target: (server: MeasuredServer) => Target;
  limitTarget: (server: MeasuredServer) => Target;
  model: Server;
  log: (line: string) => void;
};

async function query<T extends pg.QueryResultRow>(databaseUrl: string, sql: string): Promise<T[]> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    return (await db.query<T>(sql)).rows;
  } finally {
    await db.end();
  }
}

/** Ends the stalled answers, then waits until the database has no run in progress. */
export async function releaseStalled(model: Server, databaseUrl: string | null): Promise<void> {
  await fetch(`${model.url}/bench/release`, { method: "POST" });
  if (!databaseUrl) return;
  const deadline = Date.now() + 180_000;
  while (Number((await query<{ n: string }>(databaseUrl, "select count(*) as n from runs where status in ('queued', 'running')"))[0]!.n) > 0) {
    if (Date.now() > deadline) throw new Error("Runs still active 180 s after the model was released");
    await new Promise((r) => setTimeout(r, 200));
  }
}

const warmUp = (target: Target) => measureRuns(target, { concurrency: 5, warmupMs: 0, windowMs: 1_000, pace: "fast" });

/** Pushes each kind's figures into `rows` as soon as they are measured. */
export async function streamsPhase(p: StreamsPlan, rows: StreamsRow[]): Promise<void> {
  const post = (target: Target) => (_i: number) => ({ method: "POST", path: target.path, headers: target.headers, body: runBody(randomUUID(), "stall") });

  p.log("in-flight streams: limit");
  let limit = await p.startLimit();
  await warmUp(p.limitTarget(limit));
  let l = await measureStreams({ port: limit.port, tree: limit.tree, levels: p.levels, next: post(p.limitTarget(limit)) });
  l.close();
  await releaseStalled(p.model, null);
  await limit.stop();

  p.log("in-flight streams: Dispatch");
  let d0 = await p.startDispatch();
  await warmUp(p.target(d0.server));
  let d = await measureStreams({ port: d0.server.port, tree: d0.server.tree, levels: p.levels, next: post(p.target(d0.server)) });
  d.close();
  await releaseStalled(p.model, d0.databaseUrl);
  await d0.server.stop();
  rows.push({ kind: "in-flight", dispatch: d.levels, limit: l.levels });

  p.log("idle streams: limit");
  limit = await p.startLimit();
  await warmUp(p.limitTarget(limit));
  l = await measureStreams({ port: limit.port, tree: limit.tree, levels: p.levels, next: () => ({ method: "GET", path: "/idle", headers: {} }) });
  l.close();
  await limit.stop();

  p.log("idle streams: Dispatch");
  d0 = await p.startDispatch();
  const target = p.target(d0.server);
  await warmUp(target);
  // A few stalled runs that every follower watches; they are in flight, the followers idle.
  const held = await measureStreams({ port: d0.server.port, tree: d0.server.tree, levels: [10], next: post(target) });
  const runIds = (await query<{ runId: string }>(d0.databaseUrl, "select run_id as \"runId\" from runs where status = 'running'")).map((r) => r.runId);
  d = await measureStreams({
    port: d0.server.port,
    tree: d0.server.tree,
    levels: p.levels,
    next: (i) => ({ method: "GET", path: `/api/v1/agent/runs/${encodeURIComponent(runIds[i % runIds.length]!)}/events`, headers: target.headers }),
  });
  d.close();
  held.close();
  await releaseStalled(p.model, d0.databaseUrl);
  await d0.server.stop();
  rows.push({ kind: "idle", dispatch: d.levels, limit: l.levels });
}
