// AG-UI runs at fixed concurrency: throughput, latency, CPU per run of every process group of
// the system under test (and of the load generator), peak memory.
import { randomUUID } from "node:crypto";
import { runLoad, type LoadResult, type RunRequest } from "./load";
import { watchSteal } from "./processes";
import { GROUPS, sampleEvery, totalCpu, totalRss, watchPeakMemory, type Group, type GroupMemory, type GroupUsage, type Tree } from "./tree";

export type RunsFigures = LoadResult & {
  concurrency: number;
  /** CPU per run of the whole system (every group), and of each group. */
  cpuMsPerRun: number;
  groupCpuMsPerRun: Record<Group, number>;
  peakRssMb: number;
  peakMemory: GroupMemory;
  stealPct: number;
  /** The load generator's own CPU during the window, in % of one core. */
  clientCpuPct: number;
  /** CPU per run of a proxy in front of the target (`Target.proxy`), not counted in `cpuMsPerRun`; NaN without one. */
  proxyCpuMsPerRun: number;
};

/** What to load: the server's port and processes, the path and headers of a run; `proxy`: a proxy's processes, when `port` is a proxy's. */
export type Target = { port: number; tree: Tree; path: string; headers: Record<string, string>; proxy?: Tree };

export type Pace = "fast" | "slow" | "stall";

/** "new": a new thread per run, as a stateless API client does; "follow-up": each worker keeps its thread, as a chat does. */
export type Threading = "new" | "follow-up";

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

/** Peak RSS of the whole tree, sampled every `everyMs` (cheap: /proc/PID/stat). */
function watchPeakRss(tree: Tree, everyMs = 100): () => number {
  let peak = NaN;
  const sample = () => {
    const rss = totalRss(tree.usage());
    if (Number.isFinite(rss) && (Number.isNaN(peak) || rss > peak)) peak = rss;
  };
  return sampleEvery(everyMs, sample, () => peak);
}

/** A run starts on a worker when its previous one has ended. */
export async function measureRuns(
  target: Target,
  opts: { concurrency: number; warmupMs: number; windowMs: number; pace: Pace; threading?: Threading; body?: (worker: number) => string },
): Promise<RunsFigures> {
  const threads = Array.from({ length: opts.concurrency }, () => randomUUID());
  const threadOf = (w: number) => (opts.threading === "follow-up" ? threads[w]! : randomUUID());
  let atOpen: GroupUsage | null = null;
  let atClose: GroupUsage | null = null;
  let proxyAtOpen = NaN;
  let proxyCpuMs = NaN;
  const proxyCpu = () => (target.proxy ? totalCpu(target.proxy.usage()) : NaN);
  let clientAtOpen = process.cpuUsage();
  let clientCpuUs = NaN;
  let stopRss: (() => number) | null = null;
  let stopMemory: (() => GroupMemory) | null = null;
  let stopSteal: (() => number) | null = null;
  let peakKb = NaN;
  let peakMemory: GroupMemory | null = null;
  let stealPct = NaN;
  const result = await runLoad({
    port: target.port,
    concurrency: opts.concurrency,
    warmupMs: opts.warmupMs,
    windowMs: opts.windowMs,
    request: (w) => (opts.body ? { ...runRequest(target, threadOf(w), opts.pace), body: opts.body(w) } : runRequest(target, threadOf(w), opts.pace)),
    onWindow: (edge) => {
      if (edge === "open") {
        atOpen = target.tree.usage();
        proxyAtOpen = proxyCpu();
        clientAtOpen = process.cpuUsage();
        stopRss = watchPeakRss(target.tree);
        stopMemory = watchPeakMemory(target.tree);
        stopSteal = watchSteal();
      } else {
        atClose = target.tree.usage();
        proxyCpuMs = proxyCpu() - proxyAtOpen;
        const c = process.cpuUsage(clientAtOpen);
        clientCpuUs = c.user + c.system;
        peakKb = stopRss?.() ?? NaN;
        peakMemory = stopMemory?.() ?? null;
        stealPct = stopSteal?.() ?? NaN;
      }
    },
  });
  const perRun = (ms: number) => (result.runs > 0 ? ms / result.runs : NaN);
  const open = atOpen as GroupUsage | null;
  const close = atClose as GroupUsage | null;
  const groupCpuMsPerRun = Object.fromEntries(GROUPS.map((g) => [g, open && close ? perRun(close[g].cpuMs - open[g].cpuMs) : NaN])) as Record<Group, number>;
  return {
    ...result,
    concurrency: opts.concurrency,
    cpuMsPerRun: open && close ? perRun(totalCpu(close) - totalCpu(open)) : NaN,
    groupCpuMsPerRun,
    peakRssMb: peakKb / 1024,
    peakMemory: peakMemory ?? (Object.fromEntries(GROUPS.map((g) => [g, { pssKb: NaN, ussKb: NaN, rssKb: NaN }])) as GroupMemory),
    stealPct,
    clientCpuPct: (100 * clientCpuUs) / 1000 / opts.windowMs,
    proxyCpuMsPerRun: perRun(proxyCpuMs),
  };
}
