import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import type { ExtraServer } from "@/test/extra-server";
import { bearer } from "@/test/helpers";
import { serverOnOwnedDatabase, stopServerOnOwnedDatabase, type OwnedDatabase } from "@/test/owned-database";
import { paced, runInput } from "@/test/runs";
import { readSse } from "@/test/sse";
import { waitFor } from "@/test/wait";

// The database stops while a run is answering, and the answer finishes during the outage: the
// run keeps its end (events, last message, status) until the database is back, then writes it,
// so the client's stream ends with RUN_FINISHED and the whole answer is in /history.
let db: OwnedDatabase;
let server: ExtraServer;
let apiKey: string;

beforeAll(async () => {
  ({ db, server, apiKey } = await serverOnOwnedDatabase());
}, 120_000);

afterAll(() => stopServerOnOwnedDatabase({ db, server }));

const words = (n: number) => Array.from({ length: n }, (_, i) => `blink${i}`).join(" ");

async function modelCallState(word: string): Promise<string | undefined> {
  const calls = (await (await fetch(`${inject("llmBaseUrl")}/calls?contains=${word}`)).json()) as { state: string }[];
  return calls.at(-1)?.state;
}

describe("a database that stops while a run finishes", () => {
  it("loses nothing: the stream ends with RUN_FINISHED and /history has the whole answer", async () => {
    const text = `${words(24)} blinkmarker`;
    const body = runInput({}, paced(40, text));
    const res = await fetch(`${server.url}/api/v1/agent/runs`, {
      method: "POST",
      headers: { ...bearer(apiKey), "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    const stream = readSse(res);
    const seen: { type: string; delta?: string }[] = [];
    for (;;) {
      const { value, done } = await stream.next();
      if (done) throw new Error("the stream ended before any text");
      const event = JSON.parse(value.data) as { type: string; delta?: string };
      seen.push(event);
      if (event.type === "TEXT_MESSAGE_CONTENT") break;
    }

    await db.stop();
    // The model finishes its answer while the database is down.
    await waitFor(async () => (await modelCallState("blinkmarker")) === "done", 30_000);
    await db.restart();

    for await (const frame of stream) seen.push(JSON.parse(frame.data) as { type: string; delta?: string });
    expect(seen.at(-1)?.type).toBe("RUN_FINISHED");
    const answer = seen.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");
    expect(answer).toBe(`You said: ${text}`);

    const run = (await (await fetch(`${server.url}/api/v1/agent/runs/${body.runId}`, { headers: bearer(apiKey) })).json()) as { status: string };
    expect(run.status).toBe("completed");
    const history = (await (await fetch(`${server.url}/api/v1/agent/history?threadId=${body.threadId}`, { headers: bearer(apiKey) })).json()) as {
      messages: { role: string; content: string }[];
    };
    expect(history.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", body.messages[0]!.content],
      ["assistant", `You said: ${text}`],
    ]);
  }, 90_000);
});
