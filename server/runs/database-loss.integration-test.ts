import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExtraServer } from "@/test/extra-server";
import { bearer } from "@/test/helpers";
import { serverOnOwnedDatabase, stopServerOnOwnedDatabase, type OwnedDatabase } from "@/test/owned-database";
import { paced, runInput } from "@/test/runs";
import { readSse, type SseFrame } from "@/test/sse";
import { waitFor } from "@/test/wait";

// The database dies while a run streams (issue #46, item 10). The stream must not go silent until
// the run gives up: it ends, without a terminal event, within a heartbeat or two, so the client
// knows to reconnect; once the database is back, resuming with Last-Event-ID gives the rest of
// the run, without gap or duplicate. On the AG-UI door, where a requester that leaves stops its
// run (after AG_UI_STOP_GRACE_MS), that close is not the client leaving: the run goes on.
let db: OwnedDatabase;
let server: ExtraServer;
let apiKey: string;

beforeAll(async () => {
  ({ db, server, apiKey } = await serverOnOwnedDatabase({ env: { AG_UI_STOP_GRACE_MS: "8000" } }));
}, 120_000);

afterAll(() => stopServerOnOwnedDatabase({ db, server }));

const words = (n: number) => Array.from({ length: n }, (_, i) => `lost${i}`).join(" ");
type Event = { type: string; delta?: string };

/** Resolves with the rest of the stream's frames once it ends; rejects if it is still open after `withinMs`. */
async function endOf(stream: AsyncGenerator<SseFrame>, withinMs: number): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  let timer: NodeJS.Timeout | undefined;
  const drained = (async () => {
    for await (const frame of stream) frames.push(frame);
    return frames;
  })();
  try {
    return await Promise.race([
      drained,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`the stream was still open ${withinMs} ms after the database died`)), withinMs))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe("a database that dies under an open stream", () => {
  it.each(["/api/v1/agent/runs", "/api/v1/ag-ui"])("ends a stream of %s within 15 s; a resume with Last-Event-ID once it is back gives the rest, without gap or duplicate", async (door) => {
    const text = `${words(250)} lostmarker`;
    const body = runInput({ protocolVersion: "1.0" }, paced(100, text));
    const res = await fetch(`${server.url}${door}`, {
      method: "POST",
      headers: { ...bearer(apiKey), "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    const stream = readSse(res);
    const seen: SseFrame[] = [];
    for (;;) {
      const { value, done } = await stream.next();
      if (done) throw new Error("the stream ended before any text");
      seen.push(value);
      if ((JSON.parse(value.data) as Event).type === "TEXT_MESSAGE_CONTENT") break;
    }

    await db.stop();
    seen.push(...(await endOf(stream, 15_000)));
    const beforeLoss = seen.map((f) => JSON.parse(f.data) as Event);
    // Closed for the client to come back, not ended: no terminal event, nothing an AG-UI client gives up on.
    expect(beforeLoss.map((e) => e.type)).not.toContain("RUN_FINISHED");
    expect(beforeLoss.map((e) => e.type)).not.toContain("RUN_ERROR");

    await db.restart();
    const lastId = seen.at(-1)!.id!;
    let resumed: Response | undefined;
    await waitFor(async () => {
      resumed = await fetch(`${server.url}/api/v1/agent/runs/${body.runId}/events`, { headers: { ...bearer(apiKey), "last-event-id": lastId } });
      return resumed.status === 200;
    }, 30_000);
    for await (const frame of readSse(resumed!)) seen.push(frame);

    expect(seen.map((f) => Number(f.id))).toEqual(seen.map((_, i) => i + 1));
    const events = seen.map((f) => JSON.parse(f.data) as Event);
    expect(events.at(-1)?.type).toBe("RUN_FINISHED");
    const answer = events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");
    expect(answer).toBe(`You said: ${text}`);
    const run = (await (await fetch(`${server.url}/api/v1/agent/runs/${body.runId}`, { headers: bearer(apiKey) })).json()) as { status: string };
    expect(run.status).toBe("completed");
  }, 120_000);
});
