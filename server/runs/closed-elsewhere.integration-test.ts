import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { getPool } from "@/server/db";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { postRun, runInput, waitForRunEnd } from "@/test/runs";
import { collectSse, readSse, type SseFrame } from "@/test/sse";
import { waitFor } from "@/test/wait";
import { closeAbandonedRun, EXECUTOR_LOST } from "./recovery";

// A run closed by another instance (recovery after missed heartbeats, say across a database
// outage) while its executor still runs: the executor learns it from its heartbeat and stops, and
// none of its late events lands after the terminal event that closed the run.
let user: Awaited<ReturnType<typeof createTestUser>>;

beforeAll(async () => {
  baseUrl(); // needs a production build
  user = await createTestUser();
});

async function modelCalls(word: string): Promise<{ state: string }[]> {
  const res = await fetch(`${inject("llmBaseUrl")}/calls?contains=${encodeURIComponent(word)}`);
  return (await res.json()) as { state: string }[];
}

const events = (runId: string, lastEventId?: string) =>
  fetch(`${baseUrl()}/api/v1/agent/runs/${encodeURIComponent(runId)}/events`, { headers: { ...bearer(user.apiKey), ...(lastEventId ? { "last-event-id": lastEventId } : {}) } });

describe("a run closed behind its executor's back", () => {
  it("stops the executor, and its log ends with the closing terminal event, ids 1..n", async () => {
    const word = `closed-${randomUUID().slice(0, 8)}`;
    const body = runInput({}, `[[hang]] ${word}`);
    const res = await postRun(user.apiKey, body, { stream: true });
    expect(res.status).toBe(200);
    const received: SseFrame[] = [];
    const stream = readSse(res);
    for (let next = await stream.next(); !next.done; next = await stream.next()) {
      received.push(next.value);
      if (JSON.parse(next.value.data).type === "TEXT_MESSAGE_CONTENT") break;
    }
    await waitFor(async () => (await modelCalls(word)).length === 1);

    const { rows } = await getPool().query<{ id: string; threadId: string }>(`select id, thread_id as "threadId" from runs where run_id = $1 and user_id = $2`, [body.runId, user.id]);
    await closeAbandonedRun({ id: rows[0]!.id, runId: body.runId, threadId: rows[0]!.threadId }, EXECUTOR_LOST);

    // The executor hears it at its next heartbeat and stops its model call; its stream here closes.
    await waitFor(async () => (await modelCalls(word)).every((c) => c.state === "aborted"), 15_000);
    for (let next = await stream.next(); !next.done; next = await stream.next()) received.push(next.value);
    expect(await waitForRunEnd(user.apiKey, body.runId)).toMatchObject({ status: "failed", error: { code: "EXECUTOR_LOST" } });

    // A new run on the thread ends before the old log is read again: whatever the stopped executor
    // still had, it had time to write.
    const next = runInput({ threadId: body.threadId }, "after the close");
    expect((await postRun(user.apiKey, next)).status).toBe(202);
    expect((await waitForRunEnd(user.apiKey, next.runId)).status).toBe("completed");

    const log = await collectSse(await events(body.runId));
    expect(log.map((f) => Number(f.id))).toEqual(log.map((_, i) => i + 1));
    expect(JSON.parse(log.at(-1)!.data)).toMatchObject({ type: "RUN_ERROR", code: "EXECUTOR_LOST" });
    expect(log.filter((f) => ["RUN_ERROR", "RUN_FINISHED"].includes(JSON.parse(f.data).type))).toHaveLength(1);
    // What the follower saw is the log's start; resuming from it gives the rest and ends.
    expect(log.slice(0, received.length)).toEqual(received);
    expect(await collectSse(await events(body.runId, received.at(-1)!.id!))).toEqual(log.slice(received.length));
  }, 60_000);
});
