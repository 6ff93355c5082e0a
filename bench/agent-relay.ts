// What Dispatch's relay of an AG-UI agent costs per event: a fake AG-UI agent on loopback streams
// one answer of N content events (N from the run's forwardedProps) as fast as it can write them
// (bench/fake-ag-ui-agent.ts, in its own process),
// read directly (POST to the agent, as an AG-UI client would) and through Dispatch (POST
// /api/v1/ag-ui of a server whose user is bound to the agent: the relay checks, persists and
// publishes every event). Each path runs answers of two sizes, so that the per-event cost (the
// slope between them) is told apart from the run's fixed cost.
// Per run: its wall time, when its first content event came, the Dispatch process tree's CPU
// (server + PostgreSQL) and this process's own CPU (the client's; the agent has its own process).
// Prints {"sizes": [S, L], "direct": {S: [RelaySample...], L: [...]}, "dispatch": {...}} as its last line.
// Runs with the server's environment (RUNNER_ALLOWED_HOSTS=127.0.0.1) and the react-server condition.
//   node --conditions=react-server --import tsx bench/agent-relay.ts --url URL --roots PID,PID --port P --runs R --events S,L
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { createApiKey } from "@/server/accounts/service/api-keys";
import { createUser } from "@/server/accounts/service/users";
import { getPool } from "@/server/db";
import { bindRunner, registerAgent } from "@/server/runner-host/service";
import { startScript, stopAll } from "./processes";
import { processTree, totalCpu } from "./tree";

export type RelaySample = { totalMs: number; firstEventMs: number; dispatchCpuMs: number; benchCpuMs: number };

const { values } = parseArgs({
  options: { url: { type: "string" }, roots: { type: "string" }, port: { type: "string" }, runs: { type: "string" }, events: { type: "string" }, warmup: { type: "string", default: "3" } },
});
const sizes = values.events!.split(",").map(Number);
const tree = processTree(values.roots!.split(",").map(Number), Number(values.port));

/** The fake agent in a process of its own (bench/fake-ag-ui-agent.ts), so that it never shares this client's event loop. */
async function startFakeAgent(): Promise<{ url: string }> {
  const child = startScript("fake-ag-ui-agent.ts", [], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString("utf8");
      if (out.includes("\n")) resolve(out.trim());
    });
    child.once("exit", (code) => reject(new Error(`the fake AG-UI agent exited (code ${code})`)));
  });
  return { url };
}

/** Reads an SSE response to its end: when its first content event came, and how many frames it had. */
async function readStream(res: Response, started: number): Promise<{ firstEventAt: number; frames: number }> {
  if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  const decoder = new TextDecoder();
  let firstEventAt = NaN;
  let frames = 0;
  let tail = "";
  for await (const chunk of res.body) {
    const text = tail + decoder.decode(chunk, { stream: true });
    const parts = text.split("\n\n");
    tail = parts.pop()!;
    for (const part of parts) {
      if (!part.includes("data:")) continue;
      frames++;
      if (Number.isNaN(firstEventAt) && part.includes('"TEXT_MESSAGE_CONTENT"')) firstEventAt = performance.now() - started;
    }
  }
  return { firstEventAt, frames };
}

function runInput(events: number) {
  return { threadId: randomUUID(), runId: randomUUID(), state: {}, messages: [{ id: randomUUID(), role: "user", content: "stream" }], tools: [], context: [], forwardedProps: { events } };
}

async function timedRun(events: number, post: () => Promise<Response>): Promise<RelaySample> {
  const cpuBefore = totalCpu(tree.usage());
  const selfBefore = process.cpuUsage();
  const started = performance.now();
  const { firstEventAt, frames } = await readStream(await post(), started);
  const totalMs = performance.now() - started;
  if (frames < events) throw new Error(`a run streamed ${frames} frames, fewer than its ${events} content events`);
  const self = process.cpuUsage(selfBefore);
  return { totalMs, firstEventMs: firstEventAt, dispatchCpuMs: totalCpu(tree.usage()) - cpuBefore, benchCpuMs: (self.user + self.system) / 1000 };
}

const agent = await startFakeAgent();
const email = `relay-${randomUUID().slice(0, 8)}@dispatch.local`;
const user = await createUser({ email, password: "bench password 1", role: "user" });
const { key } = await createApiKey({ userId: user.id, name: "relay bench" });
const { runnerId } = await registerAgent({ url: agent.url, name: `relay${randomUUID().slice(0, 8)}` });
await bindRunner({ runnerId, email });

const json = { "content-type": "application/json", accept: "text/event-stream" };
const direct = (events: number) => () => timedRun(events, () => fetch(agent.url, { method: "POST", headers: json, body: JSON.stringify(runInput(events)) }));
const viaDispatch = (events: number) => () =>
  timedRun(events, () => fetch(`${values.url}/api/v1/ag-ui`, { method: "POST", headers: { ...json, authorization: `Bearer ${key}` }, body: JSON.stringify(runInput(events)) }));

async function repeat(fn: () => Promise<RelaySample>, n: number): Promise<RelaySample[]> {
  const out: RelaySample[] = [];
  for (let i = 0; i < n; i++) out.push(await fn());
  return out;
}

try {
  await repeat(direct(sizes[0]!), Number(values.warmup));
  await repeat(viaDispatch(sizes[0]!), Number(values.warmup));
  const result = { sizes, direct: {} as Record<number, RelaySample[]>, dispatch: {} as Record<number, RelaySample[]> };
  for (const size of sizes) {
    result.direct[size] = [];
    result.dispatch[size] = [];
  }
  // Interleaved halves, so that a slower stretch of the machine weighs on both paths and both sizes.
  for (let half = 0; half < 2; half++) {
    for (const size of sizes) {
      result.direct[size]!.push(...(await repeat(direct(size), Number(values.runs) / 2)));
      result.dispatch[size]!.push(...(await repeat(viaDispatch(size), Number(values.runs) / 2)));
    }
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  await stopAll();
  await getPool().end();
}
process.exit(0);
