import { HttpAgent, type RunAgentParameters } from "@ag-ui/client";
import { baseUrl } from "@/test/helpers";
import { collectSse, readSse, type SseFrame } from "@/test/sse";
import type { Cell } from "./axes";

// How a client of the AG-UI-event doors receives a run: the POST's own stream; a 202 and then
// GET /api/v1/agent/runs/{runId}/events; or the stream left mid-run and rejoined with
// Last-Event-ID. What it received is kept frame by frame (with the SSE ids) for the invariants.

export type AgUiEvent = { type: string } & Record<string, unknown>;
export type RunRecord = { runId: string; frames: SseFrame[]; /** Frames read before the client left (resume only). */ leftAfter: number | null };

/** An opened request: its response, how the client leaves it, and when its client is done. */
export type Opened = { res: Response; leave(): void; settled: Promise<unknown> };
/** Sends a door's request: asking for the stream (`true`) or for a 202 (`false`). */
export type Post = (stream: boolean) => Promise<Opened>;

export const eventsOf = (frames: SseFrame[]): AgUiEvent[] => frames.map((f) => JSON.parse(f.data) as AgUiEvent);

export const fetched = (res: Response): Opened => ({ res, leave: () => {}, settled: Promise.resolve() });

/**
 * How a door's client reads a run: its credentials, and its AG-UI version ("0.0" for a client that
 * sends no protocolVersion, as the seed spec's; GET …/events takes it as ?protocolVersion=).
 */
export type Reader = { auth: Record<string, string>; version: "0.0" | "1.0" };

function openEvents(runId: string, reader: Reader, lastEventId: string | null): Promise<Response> {
  return fetch(`${baseUrl()}/api/v1/agent/runs/${encodeURIComponent(runId)}/events?protocolVersion=${reader.version}`, {
    headers: { ...reader.auth, accept: "text/event-stream", ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
  });
}

/** GET …/events from after `lastEventId` (from the start when null), to the run's end. */
export async function follow(runId: string, reader: Reader, lastEventId: string | null = null): Promise<SseFrame[]> {
  const res = await openEvents(runId, reader, lastEventId);
  if (res.status !== 200) throw new Error(`GET …/events answered ${res.status}: ${await res.text()}`);
  return collectSse(res);
}

async function expectStatus(res: Response, status: number): Promise<void> {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${await res.text()}`);
}

const runIdOf = (frames: SseFrame[]) => {
  const started = eventsOf(frames).find((e) => e.type === "RUN_STARTED");
  if (!started) throw new Error("the stream has no RUN_STARTED");
  return started.runId as string;
};

/**
 * Reads until two frames with ids arrived (the run started and went on), then leaves. The built-in
 * agent's answer is paced (turns.ts), so it leaves mid-run; a quick runner may have ended by then,
 * and the rejoin reads the rest from the log alone.
 */
async function readThenLeave(opened: Opened): Promise<SseFrame[]> {
  const seen: SseFrame[] = [];
  for await (const frame of readSse(opened.res)) {
    seen.push(frame);
    if (seen.filter((f) => f.id !== null).length >= 2) break;
  }
  opened.leave();
  return seen;
}

/**
 * One run delivered as the cell says. `streams`: whether this request is one the door's client
 * streams (a web chat decision is answered 202 and followed, whatever the cell's delivery).
 */
export async function deliver(post: Post, delivery: Cell["delivery"], reader: Reader, streams = true): Promise<RunRecord> {
  if (delivery === "stream" && streams) {
    const opened = await post(true);
    await expectStatus(opened.res, 200);
    const frames = await collectSse(opened.res);
    await opened.settled;
    return { runId: runIdOf(frames), frames, leftAfter: null };
  }
  if (delivery !== "resume" || !streams) {
    const opened = await post(false);
    await expectStatus(opened.res, 202);
    const body = (await opened.res.json()) as { runId?: string; task?: { runId: string } };
    const runId = body.task?.runId ?? body.runId!;
    if (delivery !== "resume") return { runId, frames: await follow(runId, reader), leftAfter: null };
    const first = await readThenLeave(fetched(await openEvents(runId, reader, null)));
    return { runId, frames: [...first, ...(await follow(runId, reader, lastId(first)))], leftAfter: first.length };
  }
  const opened = await post(true);
  await expectStatus(opened.res, 200);
  const first = await readThenLeave(opened);
  await opened.settled;
  const runId = runIdOf(first);
  return { runId, frames: [...first, ...(await follow(runId, reader, lastId(first)))], leftAfter: first.length };
}

const lastId = (frames: SseFrame[]) => frames.findLast((f) => f.id !== null)?.id ?? null;

/**
 * A streamed request made by the official HttpAgent (what the web chat and AG-UI clients run):
 * its fetch is the real one, teed, so the agent consumes and checks the stream (its pipeline runs
 * verifyEvents) while the test keeps the frames with their ids.
 */
export function agentPost(agent: HttpAgent, params: RunAgentParameters): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const real = agent.fetch;
    agent.fetch = async (url, init) => {
      const res = await real(url, init);
      if (!res.body) return res;
      const [mine, theirs] = res.body.tee();
      resolve({ res: new Response(mine, { status: res.status, headers: res.headers }), leave: () => agent.abortRun(), settled });
      return new Response(theirs, { status: res.status, headers: res.headers });
    };
    const settled = agent.runAgent(params);
    settled.catch(reject);
  });
}
