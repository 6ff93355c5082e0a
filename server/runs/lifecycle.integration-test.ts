import { EventType } from "@ag-ui/core";
import { beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { createTestUser } from "@/test/helpers";
import { waitFor } from "@/test/wait";
import { runInput } from "@/test/runs";
import { parseRunAgentInput } from "@/server/protocols/ag-ui/run-input";
import { acceptRun } from "./accept";
import { flushEvents, lastPersistedSeq, readEvents } from "./event-log";
import { executeRun } from "./execute";
import { finishRun } from "@/server/runs/repository/run-messages";
import { closeAbandonedRun, EXECUTOR_LOST, recoverAbandonedRuns } from "./recovery";
import { followRunBatches } from "./subscribe";
import type { Runner } from "../kernel/runs";

let userId: string;
beforeAll(async () => {
  userId = (await createTestUser()).id;
});

async function accept(text = "hi") {
  const parsed = parseRunAgentInput(JSON.stringify(runInput({}, text)));
  if (!parsed.ok) throw new Error(parsed.message);
  const { run } = await acceptRun({ userId, input: parsed.input, protocol: "ag-ui", runner: "test" });
  return { run, input: parsed.input };
}

const handle = (run: Awaited<ReturnType<typeof accept>>["run"], deadlineAt = run.deadlineAt) => ({
  id: run.id,
  runId: run.runId,
  threadId: run.threadId,
  userId: run.userId,
  protocol: run.protocol,
  deadlineAt,
  createdAt: run.createdAt,
});

async function eventTypes(runId: string) {
  return (await readEvents({ runId, after: 0, limit: 1000 })).map((r) => JSON.parse(r.json) as { type: string; code?: string });
}

async function status(id: string) {
  const { rows } = await getPool().query("select status, error_code from runs where id = $1", [id]);
  return rows[0] as { status: string; error_code: string | null };
}

describe("run lifecycle", () => {
  it("hands a follower only events already in the log, the terminal one included", async () => {
    const { run, input } = await accept();
    const talks: Runner = {
      id: "test:talk",
      run: async ({ emit }) => {
        emit({ type: EventType.TEXT_MESSAGE_START, messageId: "m-durable", role: "assistant" });
        for (let i = 0; i < 40; i++) emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m-durable", delta: `w${i} ` });
        emit({ type: EventType.TEXT_MESSAGE_END, messageId: "m-durable" });
        return {};
      },
    };
    const followed: { seq: number; persisted: number }[] = [];
    const following = (async () => {
      for await (const batch of followRunBatches({ runId: run.id, after: 0, signal: new AbortController().signal })) {
        followed.push({ seq: batch.at(-1)!.seq, persisted: await lastPersistedSeq(run.id) });
      }
    })();
    await executeRun(handle(run), input, talks);
    await following;
    expect(followed.at(-1)!.seq).toBe(44);
    for (const f of followed) expect(f.persisted).toBeGreaterThanOrEqual(f.seq);
    expect((await status(run.id)).status).toBe("completed");
  });

  it("stops a run at its deadline and fails it with a clear code", async () => {
    const { run, input } = await accept();
    const hangs: Runner = {
      id: "test:hang",
      run: ({ signal, emit }) =>
        new Promise((_, reject) => {
          emit({ type: EventType.TEXT_MESSAGE_START, messageId: "m1", role: "assistant" });
          emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "partial" });
          signal.addEventListener("abort", () => reject(new Error("aborted")));
        }),
    };
    await executeRun(handle(run, new Date(Date.now() + 150)), input, hangs);
    const events = await eventTypes(run.id);
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_ERROR"]);
    expect(events.at(-1)).toMatchObject({ code: "DEADLINE_EXCEEDED" });
    expect(await status(run.id)).toEqual({ status: "failed", error_code: "DEADLINE_EXCEEDED" });
    // The partial answer is kept in the thread.
    const { rows } = await getPool().query("select role, content, metadata from messages where thread_id = $1 order by seq", [run.threadId]);
    expect(rows.map((r) => [r.role, r.content])).toEqual([["user", "hi"], ["assistant", "partial"]]);
    expect(rows[1].metadata).toMatchObject({ run_id: run.runId, message_id: "m1", stage: "answer", latency_ms: expect.any(Number) });
    expect(rows[0].metadata).toMatchObject({ run_id: run.runId, stage: "input" });
  });

  it("fails a run whose runner crashes with RUN_ERROR, hiding internal details", async () => {
    const { run, input } = await accept();
    const crashes: Runner = { id: "test:crash", run: async () => Promise.reject(new Error("secret stack detail")) };
    await executeRun(handle(run), input, crashes);
    const events = await eventTypes(run.id);
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_ERROR"]);
    expect(JSON.stringify(events)).not.toContain("secret stack detail");
    expect((await status(run.id)).status).toBe("failed");
  });

  it("closes a run whose executor missed three heartbeats, keeping what was written", async () => {
    const { run } = await accept();
    const started = { type: "RUN_STARTED", threadId: run.threadId, runId: run.runId };
    const open = { type: "TEXT_MESSAGE_START", messageId: "m-dead", role: "assistant" };
    await getPool().query(
      `insert into run_event_batches (run_id, first_seq, last_seq, types, events, run_created_at)
       select $1, 1, 2, 'RUN_STARTED TEXT_MESSAGE_START', $2, created_at from runs where id = $1`,
      [run.id, `${JSON.stringify(started)}\n${JSON.stringify(open)}`],
    );
    await getPool().query(`update runs set status = 'running', heartbeat_at = now() - interval '20 seconds' where id = $1`, [run.id]);
    // Every instance on the test database sweeps for abandoned runs, so another test file's server
    // may close this one first: what counts is that it is closed, and how.
    await recoverAbandonedRuns({ runId: run.id });
    await waitFor(async () => (await status(run.id)).status === "failed", 10_000);
    await flushEvents();
    const events = await eventTypes(run.id);
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_END", "RUN_ERROR"]);
    expect(events.at(-1)).toMatchObject({ code: "EXECUTOR_LOST" });
    expect(await status(run.id)).toEqual({ status: "failed", error_code: "EXECUTOR_LOST" });
  });

  it("never closes a run without its terminal event when a late batch takes the closing events' place", async () => {
    const { run } = await accept();
    const started = { type: "RUN_STARTED", threadId: run.threadId, runId: run.runId };
    const batch = (first: number, events: object[]) =>
      getPool().query(`insert into run_event_batches (run_id, first_seq, last_seq, types, events, run_created_at) select $1, $2, $3, $4, $5, created_at from runs where id = $1`, [
        run.id,
        first,
        first + events.length - 1,
        events.map((e) => (e as { type: string }).type).join(" "),
        events.map((e) => JSON.stringify(e)).join("\n"),
      ]);
    await batch(1, [started]);
    await getPool().query(`update runs set status = 'running' where id = $1`, [run.id]);
    // A closer read the log up to 1; the executor's next batch commits at 2 before the closer writes.
    await batch(2, [{ type: "TEXT_MESSAGE_START", messageId: "m-late", role: "assistant" }]);
    const terminal = { type: "RUN_ERROR", message: "stale", code: "EXECUTOR_LOST" };
    await expect(
      finishRun({ threadId: run.threadId, runId: run.id, messages: [], end: { status: "failed", errorCode: "EXECUTOR_LOST" }, closing: { firstSeq: 2, types: ["RUN_ERROR"], events: [JSON.stringify(terminal)] } }),
    ).rejects.toMatchObject({ code: "23505" });
    expect((await status(run.id)).status).toBe("running");
    // Read again, the log closes after its real end.
    await closeAbandonedRun(run, EXECUTOR_LOST);
    expect((await eventTypes(run.id)).map((e) => e.type)).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_END", "RUN_ERROR"]);
    expect(await status(run.id)).toEqual({ status: "failed", error_code: "EXECUTOR_LOST" });
  });
});
