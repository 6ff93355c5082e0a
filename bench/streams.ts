// Memory held per open stream: in-flight runs whose model has stalled, and idle followers
// (GET /api/v1/agent/runs/{runId}/events of a stalled run). Streams are opened in batches
// until each level is reached; each level is read once the server has settled, per process
// group (PSS, USS and RSS from smaps_rollup).
import http from "node:http";
import type { GroupMemory, Tree } from "./tree";

export type StreamLevel = { streams: number; memory: GroupMemory };

type Open = { req: http.ClientRequest };

const BATCH = 200;
const SETTLE_MS = 1_500;

/** Opens one SSE request and resolves once its first frame arrived; the stream stays open. */
function openStream(agent: http.Agent, port: number, opts: { method: string; path: string; headers: Record<string, string>; body?: string }): Promise<Open> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method: opts.method,
        path: opts.path,
        agent,
        headers: { ...opts.headers, accept: "text/event-stream", ...(opts.body ? { "content-type": "application/json", "content-length": Buffer.byteLength(opts.body) } : {}) },
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`${opts.method} ${opts.path} answered ${res.statusCode}`));
          return;
        }
        res.once("data", () => resolve({ req }));
        res.on("data", () => {});
        res.once("error", () => {});
      },
    );
    req.once("error", reject);
    req.end(opts.body);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Opens streams up to each level (made by `next(i)`), reading the system's memory at each.
 * Returns the figures and a function that closes every stream.
 */
export async function measureStreams(opts: {
  port: number;
  tree: Tree;
  levels: number[];
  next: (i: number) => { method: string; path: string; headers: Record<string, string>; body?: string };
}): Promise<{ levels: StreamLevel[]; close: () => void }> {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const open: Open[] = [];
  const close = () => {
    for (const s of open) s.req.destroy();
    agent.destroy();
  };
  try {
    const levels: StreamLevel[] = [];
    for (const level of opts.levels) {
      while (open.length < level) {
        const batch = Array.from({ length: Math.min(BATCH, level - open.length) }, (_, k) => openStream(agent, opts.port, opts.next(open.length + k)));
        const settled = await Promise.allSettled(batch);
        for (const r of settled) if (r.status === "fulfilled") open.push(r.value);
        const failed = settled.find((r) => r.status === "rejected");
        if (failed) throw failed.reason;
      }
      await sleep(SETTLE_MS);
      levels.push({ streams: level, memory: opts.tree.memory() });
    }
    return { levels, close };
  } catch (err) {
    close();
    throw err;
  }
}
