import { beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { RUN_EVENTS_CHANNEL, RUN_EVENTS_SQL } from "@/server/runs/repository/run-events";
import { waitFor } from "@/test/wait";
import { createTestUser } from "@/test/helpers";
import { runInput } from "@/test/runs";
import { parseRunAgentInput } from "@/server/protocols/ag-ui/run-input";
import { acceptRun } from "./accept";
import { flushEvents, lastPersistedSeq, onEventsDurable, onRunClosedElsewhere, persistEvent, readEvents } from "./event-log";

// The event log stores a run's events in batches (a row per group commit); readers must see
// exactly the events, in order, with their text unchanged, wherever the batches split.

let userId: string;
beforeAll(async () => {
  userId = (await createTestUser()).id;
});

async function newRun(): Promise<string> {
  const parsed = parseRunAgentInput(JSON.stringify(runInput({}, "log me")));
  if (!parsed.ok) throw new Error(parsed.message);
  return (await acceptRun({ userId, input: parsed.input, protocol: "ag-ui", runner: "test" })).run.id;
}

const event = (runId: string, seq: number) => ({
  seq,
  type: seq % 3 === 0 ? "TOOL_CALL_ARGS" : "TEXT_MESSAGE_CONTENT",
  // Text that must survive byte for byte: escapes, a quote, non-ASCII, a spaced key order.
  json: `{"type":"${seq % 3 === 0 ? "TOOL_CALL_ARGS" : "TEXT_MESSAGE_CONTENT"}","delta":"line ${seq}\\nsecond \\"q\\" é€ ${runId.slice(0, 4)}" , "n":${seq}}`,
});

describe("run event log", () => {
  it("reads back every event of interleaved runs written over several batches, from any cursor", async () => {
    const [a, b] = [await newRun(), await newRun()];
    let seq = 0;
    for (const size of [1, 5, 2, 9]) {
      for (let i = 0; i < size; i++) {
        seq++;
        persistEvent(a, event(a, seq), 1);
        persistEvent(b, event(b, seq), 1);
      }
      await flushEvents();
    }
    const { rows } = await getPool().query<{ n: number }>("select count(*)::int as n from run_event_batches where run_id = $1", [a]);
    expect(rows[0]!.n).toBe(4);
    expect(await lastPersistedSeq(a)).toBe(17);

    const expected = Array.from({ length: 17 }, (_, i) => event(a, i + 1));
    expect(await readEvents({ runId: a, after: 0, limit: 100 })).toEqual(expected);
    for (const [after, limit] of [
      [0, 1],
      [1, 3],
      [3, 4],
      [6, 1],
      [7, 10],
      [16, 5],
      [17, 5],
    ] as const) {
      expect(await readEvents({ runId: a, after, limit })).toEqual(expected.slice(after, after + limit));
    }
    expect((await readEvents({ runId: b, after: 10, limit: 100 })).map((r) => r.seq)).toEqual([11, 12, 13, 14, 15, 16, 17]);

    // The SQL view of the log (admin, thread deletion) expands the same events.
    const sql = await getPool().query<{ seq: number; type: string; payload: string }>(`select seq, type, payload from ${RUN_EVENTS_SQL} e where run_id = $1 order by seq`, [a]);
    expect(sql.rows.map((r) => ({ seq: r.seq, type: r.type, json: r.payload }))).toEqual(expected);
  });

  it("takes no more events for a run once it is closed, and names the run to its executor", async () => {
    const [open, closed] = [await newRun(), await newRun()];
    const durable: string[] = [];
    const refused: string[] = [];
    onEventsDurable((runId) => durable.push(runId));
    onRunClosedElsewhere((runId) => refused.push(runId));
    for (const seq of [1, 2]) {
      persistEvent(open, event(open, seq), 1);
      persistEvent(closed, event(closed, seq), 1);
    }
    await flushEvents();
    // Closed behind this instance's back, as recovery elsewhere does.
    await getPool().query("update runs set status = 'failed', finished_at = now() where id = $1", [closed]);
    durable.length = 0;
    for (const seq of [3, 4]) {
      persistEvent(open, event(open, seq), 1);
      persistEvent(closed, event(closed, seq), 1);
    }
    await flushEvents();
    expect(refused).toEqual([closed]);
    expect(durable).toEqual([open]);
    expect((await readEvents({ runId: open, after: 0, limit: 10 })).map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    expect((await readEvents({ runId: closed, after: 0, limit: 10 })).map((r) => r.seq)).toEqual([1, 2]);
  });

  it("tells other instances of each write once it is durable, naming the write's last event", async () => {
    const run = await newRun();
    // What another instance's LISTEN connection hears, and what the log held at that moment.
    const listener = await getPool().connect();
    const heard: { seq: number; stored: number }[] = [];
    const checks: Promise<void>[] = [];
    listener.on("notification", (msg) => {
      const [id, seq] = (msg.payload ?? "").split(":");
      if (id !== run) return;
      checks.push(lastPersistedSeq(run).then((stored) => void heard.push({ seq: Number(seq), stored })));
    });
    await listener.query(`listen ${RUN_EVENTS_CHANNEL}`);
    try {
      let seq = 0;
      for (const size of [1, 4, 3]) {
        for (let i = 0; i < size; i++) persistEvent(run, event(run, ++seq), 1);
        await flushEvents();
      }
      // Three writes: wait for their three notifications (in whatever order), then for what the log held at each.
      await waitFor(() => checks.length >= 3);
      await Promise.all(checks);
      // One notification per write, each naming events that were already stored. They may arrive
      // out of order (each goes on its own when its write has committed): a follower reads the log
      // to its end whichever it hears, so only what they name matters.
      expect(heard.map((h) => h.seq).sort((a, b) => a - b)).toEqual([1, 5, 8]);
      for (const h of heard) expect(h.stored).toBeGreaterThanOrEqual(h.seq);
    } finally {
      await listener.query(`unlisten ${RUN_EVENTS_CHANNEL}`);
      listener.release();
    }
  });
});
