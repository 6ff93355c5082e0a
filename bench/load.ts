// Closed-loop load: C workers, each on its own keep-alive connection, start a streamed run,
// read it to the end, and start the next. Frames are counted, not parsed, so the client
// stays cheap next to the server it measures.
import http from "node:http";

export type RunRequest = { path: string; headers: Record<string, string>; body: string };

export type RunSample = { startedAt: number; ttfeMs: number; totalMs: number; events: number; ok: boolean };

export type LoadResult = {
  runs: number;
  failed: number;
  runsPerSec: number;
  eventsPerSec: number;
  ttfe: { p50: number; p99: number };
  total: { p50: number; p99: number };
  firstFailure: string | null;
};

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const FINISHED = /"type":"RUN_FINISHED"/;

/** One streamed run: time to the first frame, to the end, and the frame count. */
export function streamRun(agent: http.Agent, port: number, req: RunRequest): Promise<RunSample & { tail: string }> {
  return new Promise((resolve) => {
    const startedAt = performance.now();
    let ttfeMs = NaN;
    let events = 0;
    let tail = "";
    let prevLast = "";
    const done = (ok: boolean) => resolve({ startedAt, ttfeMs, totalMs: performance.now() - startedAt, events, ok: ok && FINISHED.test(tail), tail });
    const r = http.request(
      { host: "127.0.0.1", port, method: "POST", path: req.path, agent, headers: { ...req.headers, "content-length": Buffer.byteLength(req.body) } },
      (res) => {
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          if (Number.isNaN(ttfeMs)) ttfeMs = performance.now() - startedAt;
          // A frame ends with a blank line; a boundary may fall between two chunks.
          if (prevLast === "\n" && chunk[0] === "\n") events++;
          for (let i = chunk.indexOf("\n\n"); i >= 0; i = chunk.indexOf("\n\n", i + 2)) events++;
          prevLast = chunk[chunk.length - 1]!;
          // The last frame whole (RUN_FINISHED carries the run's result and usage, often more than a few hundred characters).
          tail += chunk;
          const lastFrame = tail.lastIndexOf("\n\n", tail.length - 3);
          if (lastFrame >= 0) tail = tail.slice(lastFrame + 2);
        });
        res.on("end", () => done(res.statusCode === 200));
        res.on("error", () => done(false));
      },
    );
    r.on("error", (err) => {
      tail = String(err);
      done(false);
    });
    r.end(req.body);
  });
}

/**
 * Runs `concurrency` workers for warm-up + window; measures the runs that finished inside
 * the window. `onWindow` is called when the window opens and closes (CPU, memory readings).
 */
export async function runLoad(opts: {
  port: number;
  concurrency: number;
  warmupMs: number;
  windowMs: number;
  request: (worker: number, n: number) => RunRequest;
  onWindow: (edge: "open" | "close") => void;
}): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency });
  const t0 = performance.now();
  const open = t0 + opts.warmupMs;
  const close = open + opts.windowMs;
  const samples: RunSample[] = [];
  let firstFailure: string | null = null;
  // Each edge fires once: from its timer, or after the last run when a busy event loop ran the
  // workers' end before the timer (the readings would otherwise be missing).
  const fired = new Set<"open" | "close">();
  const edge = (e: "open" | "close") => {
    if (fired.has(e)) return;
    fired.add(e);
    opts.onWindow(e);
  };
  const edges = [setTimeout(() => edge("open"), opts.warmupMs), setTimeout(() => edge("close"), opts.warmupMs + opts.windowMs)];

  const worker = async (w: number) => {
    for (let n = 0; performance.now() < close; n++) {
      const s = await streamRun(agent, opts.port, opts.request(w, n));
      if (!s.ok) firstFailure ??= s.tail.slice(-300);
      const endedAt = s.startedAt + s.totalMs;
      if (endedAt >= open && endedAt <= close) samples.push(s);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, (_, w) => worker(w)));
  for (const e of edges) clearTimeout(e);
  edge("open");
  edge("close");
  agent.destroy();

  const good = samples.filter((s) => s.ok);
  const ttfe = good.map((s) => s.ttfeMs).sort((a, b) => a - b);
  const total = good.map((s) => s.totalMs).sort((a, b) => a - b);
  const seconds = opts.windowMs / 1000;
  return {
    runs: good.length,
    failed: samples.length - good.length,
    runsPerSec: good.length / seconds,
    eventsPerSec: good.reduce((n, s) => n + s.events, 0) / seconds,
    ttfe: { p50: percentile(ttfe, 50), p99: percentile(ttfe, 99) },
    total: { p50: percentile(total, 50), p99: percentile(total, 99) },
    firstFailure,
  };
}
