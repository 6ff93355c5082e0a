// AG-UI runs at fixed concurrency: throughput, latency, server CPU per run and peak memory.
import { randomUUID } from "node:crypto";
import { runLoad, type LoadResult, type RunRequest } from "./load";
import { treeUsage, watchPeakRss, watchSteal } from "./processes";

export type RunsFigures = LoadResult & { concurrency: number; cpuMsPerRun: number; dbCpuMsPerRun: number; peakRssMb: number; stealPct: number };

/** What to load: the server's port and process, and the database's process when it has one. */
export type Target = { port: number; pid: number; dbPid?: number | null; path: string; headers: Record<string, string> };

export type Pace = "fast" | "slow" | "stall";

/** A RunAgentInput whose user text tells the fake model how to answer. */
export function runBody(threadId: string, pace: Pace): string {
  return JSON.stringify({
    threadId,
    runId: `bench-${randomUUID()}`,
    state: {},
    messages: [{ id: `msg-${randomUUID().slice(0, 8)}`, role: "user", content: `Write me two hundred words, please. [[bench:${pace}]]` }],
    tools: [],
    context: [],
    forwardedProps: {},
  });
}

export function runRequest(target: Target, threadId: string, pace: Pace): RunRequest {
  return {
    path: target.path,
    headers: { ...target.headers, "content-type": "application/json", accept: "text/event-stream" },
    body: runBody(threadId, pace),
  };
}

/**
 * Each worker keeps one conversation (a thread of its own), as a chat client does: a run
 * starts when the previous one has ended, so the thread is never busy.
 */
export async function measureRuns(
  target: Target,
  opts: { concurrency: number; warmupMs: number; windowMs: number; pace: Pace; body?: (worker: number) => string },
): Promise<RunsFigures> {
  const threads = Array.from({ length: opts.concurrency }, () => randomUUID());
  let cpuAtOpen = 0;
  let cpuAtClose = 0;
  let dbAtOpen = 0;
  let dbAtClose = 0;
  const dbCpu = () => (target.dbPid ? treeUsage(target.dbPid).cpuMs : NaN);
  let stopPeak: (() => number) | null = null;
  let peakKb = 0;
  let stopSteal: (() => number) | null = null;
  let stealPct = NaN;
  const result = await runLoad({
    port: target.port,
    concurrency: opts.concurrency,
    warmupMs: opts.warmupMs,
    windowMs: opts.windowMs,
    request: (w) => (opts.body ? { ...runRequest(target, threads[w]!, opts.pace), body: opts.body(w) } : runRequest(target, threads[w]!, opts.pace)),
    onWindow: (edge) => {
      if (edge === "open") {
        cpuAtOpen = treeUsage(target.pid).cpuMs;
        dbAtOpen = dbCpu();
        stopPeak = watchPeakRss(target.pid);
        stopSteal = watchSteal();
      } else {
        cpuAtClose = treeUsage(target.pid).cpuMs;
        dbAtClose = dbCpu();
        peakKb = stopPeak?.() ?? 0;
        stealPct = stopSteal?.() ?? NaN;
      }
    },
  });
  return {
    ...result,
    concurrency: opts.concurrency,
    cpuMsPerRun: result.runs > 0 ? (cpuAtClose - cpuAtOpen) / result.runs : NaN,
    dbCpuMsPerRun: result.runs > 0 ? (dbAtClose - dbAtOpen) / result.runs : NaN,
    peakRssMb: peakKb / 1024,
    stealPct,
  };
}
