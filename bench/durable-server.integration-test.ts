// The durable limit (bench/durable-server.ts) publishes only what is committed: when a client
// reads a run's RUN_FINISHED, the run is already marked finished and its stored frames are
// exactly the stream the client read.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres, type RunningDatabase } from "@/scripts/lib/embedded-postgres";
import { startDurable, startFakeModel, type MeasuredServer } from "./servers";

let scratch: string;
let db: RunningDatabase;
let model: MeasuredServer;
let durable: MeasuredServer;
let client: pg.Pool;

beforeAll(async () => {
  scratch = mkdtempSync(path.join(os.tmpdir(), "dispatch-durable-limit-"));
  db = await startEmbeddedPostgres({ dataDir: scratch, database: "dispatch" });
  model = await startFakeModel(0);
  durable = await startDurable(0, `${model.url}/v1`, { url: db.url, pid: null });
  client = new pg.Pool({ connectionString: db.url, max: 8 });
}, 120_000);

afterAll(async () => {
  await client?.end();
  await durable?.stop();
  await model?.stop();
  await db?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** Streams one run; at the first chunk holding RUN_FINISHED, reads what the database holds then. */
async function runAndCheck(runId: string): Promise<{ received: string; atFinish: { finished: boolean; stored: string } }> {
  const res = await fetch(`${durable.url}/runs`, {
    method: "POST",
    body: JSON.stringify({ threadId: `t-${runId}`, runId, messages: [{ role: "user", content: "Write me two hundred words. [[bench:fast]]" }] }),
  });
  expect(res.status).toBe(200);
  const decoder = new TextDecoder();
  let received = "";
  let atFinish: { finished: boolean; stored: string } | null = null;
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    received += decoder.decode(chunk, { stream: true });
    if (!atFinish && received.includes('"type":"RUN_FINISHED"')) {
      const run = await client.query<{ finished: boolean }>("select finished_at is not null as finished from durable_limit.runs where id = $1", [runId]);
      const events = await client.query<{ events: string }>("select events from durable_limit.event_batches where run_id = $1 order by first_seq", [runId]);
      atFinish = { finished: run.rows[0]!.finished, stored: events.rows.map((r) => r.events).join("") };
    }
  }
  return { received, atFinish: atFinish! };
}

describe("the durable limit", () => {
  it("writes a frame to its socket only once it is committed, and the last batch finishes the run", async () => {
    const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => runAndCheck(`run-${i}`)));
    for (const { received, atFinish } of runs) {
      const ids = [...received.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
      expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
      expect(ids.length).toBeGreaterThan(200);
      expect(atFinish.finished).toBe(true);
      expect(atFinish.stored).toBe(received);
    }
  }, 60_000);
});
