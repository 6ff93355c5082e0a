import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { getJson, paced, postRun, runInput, waitForRunEnd } from "@/test/runs";
import { collectSse, readSse, type SseFrame } from "@/test/sse";

// A server killed mid-run (kill -9: no chance to write anything more). Every event a client
// received from it is in the log with the same id and content; the run is closed within seconds
// from its missed heartbeats, by another instance; every resume ends.
let doomed: ExtraServer | undefined;
let user: Awaited<ReturnType<typeof createTestUser>>;

beforeAll(async () => {
  baseUrl(); // needs a production build
  user = await createTestUser();
  doomed = await startExtraServer();
}, 90_000);

afterAll(() => {
  doomed?.child.kill("SIGKILL");
});

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(" ");

function events(key: string, runId: string, lastEventId?: string): Promise<Response> {
  return fetch(`${baseUrl()}/api/v1/agent/runs/${encodeURIComponent(runId)}/events`, {
    headers: { ...bearer(key), ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
  });
}

describe("a server killed mid-run", () => {
  it("loses no event a client received, closes the run within seconds, and every resume ends", async () => {
    const body = runInput({}, paced(40, words(400)));
    const res = await fetch(`${doomed!.url}/api/v1/agent/runs`, {
      method: "POST",
      headers: { ...bearer(user.apiKey), "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    const received: SseFrame[] = [];
    for await (const frame of readSse(res)) {
      received.push(frame);
      if (received.length === 12) break;
    }
    doomed!.child.kill("SIGKILL");
    await new Promise<void>((resolve) => (doomed!.child.exitCode !== null || doomed!.child.signalCode !== null ? resolve() : doomed!.child.once("exit", () => resolve())));

    // The thread is freed without anyone cancelling: the run is closed from its missed heartbeats.
    const end = await waitForRunEnd(user.apiKey, body.runId, 40_000);
    expect(end).toMatchObject({ status: "failed", error: { code: "EXECUTOR_LOST" } });

    const log = await collectSse(await events(user.apiKey, body.runId));
    expect(log.slice(0, received.length)).toEqual(received);
    const terminal = log.at(-1)!;
    expect(JSON.parse(terminal.data)).toMatchObject({ type: "RUN_ERROR", code: "EXECUTOR_LOST" });
    expect(log.map((f) => Number(f.id))).toEqual(log.map((_, i) => i + 1));

    // Resuming from the last id received gives the rest of the log and ends.
    const rest = await collectSse(await events(user.apiKey, body.runId, received.at(-1)!.id!));
    expect(rest).toEqual(log.slice(received.length));
    // From the terminal event: nothing more, and the stream closes at once.
    expect(await collectSse(await events(user.apiKey, body.runId, terminal.id!))).toEqual([]);
    // Past the end: an id this log never had is refused.
    const past = await events(user.apiKey, body.runId, String(Number(terminal.id) + 5));
    expect(past.status).toBe(400);
    expect(((await past.json()) as { error: { message: string } }).error.message).toContain(`past the last event of run ${body.runId}`);

    // The thread takes a new run.
    const next = runInput({ threadId: body.threadId }, "still there?");
    expect((await postRun(user.apiKey, next)).status).toBe(202);
    expect((await waitForRunEnd(user.apiKey, next.runId)).status).toBe("completed");
    expect((await getJson(user.apiKey, `/api/v1/agent/runs/${next.runId}`)).status).toBe(200);
  }, 90_000);
});
