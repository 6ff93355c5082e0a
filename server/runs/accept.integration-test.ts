import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { INSTANCE_ID } from "@/server/lib/instance-id";
import { parseRunAgentInput } from "@/server/protocols/ag-ui/run-input";
import { appendRunMessages, finishRun } from "@/server/runs/repository/run-messages";
import { createTestUser } from "@/test/helpers";
import { runInput } from "@/test/runs";
import { waitFor } from "@/test/wait";
import { entryEventId, type EntryEvent } from "@/server/runner-host/entry-events";
import { acceptRun } from "./accept";
import { readEvents } from "./event-log";

// What accepting a run writes and answers, straight against the database function.

let userId: string;
beforeAll(async () => {
  userId = (await createTestUser()).id;
});

function input(threadId: string, text: string, runId = `run-${randomUUID()}`) {
  const parsed = parseRunAgentInput(JSON.stringify(runInput({ threadId, runId }, text)));
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.input;
}

const PREFETCH = { historyLimit: 20, memoryLimit: 50 };

async function threadMessages(threadId: string) {
  const { rows } = await getPool().query<{ seq: number; role: string; content: string }>(
    "select seq, role, content from messages where thread_id = $1 order by seq",
    [threadId],
  );
  return rows;
}

describe("accepting a run", () => {
  it("numbers a new thread from 1 and continues it, giving the next run the thread so far (tool metadata only)", async () => {
    const threadId = randomUUID();
    const first = await acceptRun({ userId, input: input(threadId, "first question"), protocol: "ag-ui", runner: "test", start: true, prefetch: PREFETCH });
    expect(first.created).toBe(true);
    expect(first.run).toMatchObject({ threadId, userId, status: "running" });
    expect(first.run.createdAt).toBeInstanceOf(Date);
    expect(first.prefetched).toEqual({ history: [], memoryFacts: [], hiddenSkills: [], unresolvedApprovals: false, mcpServers: [] });
    // Started here, so executed here: its first attempt is this instance's, written by the accept itself.
    const { rows: attempts } = await getPool().query<{ attempt: number; instance: string; started_at: Date; ended_at: Date | null }>(
      "select attempt, instance, started_at, ended_at from run_attempts where run_id = $1",
      [first.run.id],
    );
    expect(attempts).toEqual([{ attempt: 1, instance: INSTANCE_ID, started_at: first.run.startedAt, ended_at: null }]);

    const toolMeta = { run_id: first.run.runId, message_id: "tool-1", tool_name: "project_cli", tool_call_id: "call-1", tool_call_args: { module: "calendar" } };
    await appendRunMessages({
      threadId,
      runId: first.run.id,
      messages: [{ role: "tool", messageId: "tool-1", content: "3 events", metadata: toolMeta }],
    });
    await finishRun({
      threadId,
      runId: first.run.id,
      messages: [{ role: "assistant", messageId: "answer-1", content: "You have 3 events", metadata: { run_id: first.run.runId, stage: "answer" } }],
      end: { status: "completed" },
    });

    const second = await acceptRun({ userId, input: input(threadId, "second question"), protocol: "ag-ui", runner: "test", start: true, prefetch: PREFETCH });
    expect(second.created).toBe(true);
    expect(await threadMessages(threadId)).toEqual([
      { seq: 1, role: "user", content: "first question" },
      { seq: 2, role: "tool", content: "3 events" },
      { seq: 3, role: "assistant", content: "You have 3 events" },
      { seq: 4, role: "user", content: "second question" },
    ]);
    // The new run's own message is not part of its history.
    expect(second.prefetched?.history).toEqual([
      { role: "user", content: "first question", metadata: {}, runId: first.run.id },
      { role: "tool", content: "3 events", metadata: toolMeta, runId: first.run.id },
      { role: "assistant", content: "You have 3 events", metadata: {}, runId: first.run.id },
    ]);
  });

  it("answers a retried runId with the run it started, and the same runId on another thread with a 409, writing nothing", async () => {
    const threadId = randomUUID();
    const original = input(threadId, "once");
    const first = await acceptRun({ userId, input: original, protocol: "ag-ui", runner: "test", start: true });
    const again = await acceptRun({ userId, input: original, protocol: "ag-ui", runner: "test", start: true });
    expect(again).toMatchObject({ created: false, run: { id: first.run.id, runId: original.runId } });

    const elsewhere = randomUUID();
    const moved = acceptRun({ userId, input: input(elsewhere, "once", original.runId), protocol: "ag-ui", runner: "test", start: true });
    await expect(moved).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringContaining("another thread") });
    const { rowCount } = await getPool().query("select 1 from threads where id = $1", [elsewhere]);
    expect(rowCount).toBe(0);
    expect(await threadMessages(threadId)).toHaveLength(1);
  });

  it("answers a duplicate that waited for the thread's lock with the run accepted meanwhile, not 409", async () => {
    const threadId = randomUUID();
    await acceptRun({ userId, input: input(threadId, "earlier"), protocol: "ag-ui", runner: "test", start: false }).then(({ run }) =>
      finishRun({ threadId, runId: run.id, messages: [], end: { status: "completed" } }),
    );
    const duplicate = input(threadId, "twice");
    // A transaction holds the thread's lock while it accepts the run; the duplicate looks the
    // runId up before that commits, then waits for the lock.
    const holder = await getPool().connect();
    try {
      await holder.query("begin");
      await holder.query(
        `select dispatch_accept_run(jsonb_build_object('user_id', $1::uuid, 'thread_id', $2::uuid, 'title', 't', 'run_id', $3::text,
           'protocol', 'ag-ui', 'runner', 'test', 'input', '{}'::jsonb, 'deadline_at', now() + interval '1 hour', 'start', true,
           'message', jsonb_build_object('message_id', 'm', 'content', 'twice', 'metadata', '{}'::jsonb)))`,
        [userId, threadId, duplicate.runId],
      );
      const waiting = acceptRun({ userId, input: duplicate, protocol: "ag-ui", runner: "test", start: true });
      await waitFor(async () => {
        const { rowCount } = await getPool().query(
          "select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like '%dispatch_accept_run%' and pid <> pg_backend_pid()",
        );
        return (rowCount ?? 0) > 0;
      });
      await holder.query("commit");
      const { rows } = await getPool().query<{ id: string }>("select id from runs where user_id = $1 and run_id = $2", [userId, duplicate.runId]);
      expect(await waiting).toMatchObject({ created: false, run: { id: rows[0]!.id, runId: duplicate.runId } });
    } finally {
      holder.release();
    }
    expect((await threadMessages(threadId)).map((m) => m.content)).toEqual(["earlier", "twice"]);
  });

  it("is busy exactly while the thread's newest run is in progress, also on a thread from before active_run_id", async () => {
    const threadId = randomUUID();
    const accept = (text: string) => acceptRun({ userId, input: input(threadId, text), protocol: "ag-ui", runner: "test", start: true });
    const first = await accept("one");
    await expect(accept("two")).rejects.toMatchObject({ code: "CONFLICT", details: { activeRunId: first.run.runId } });
    await finishRun({ threadId, runId: first.run.id, messages: [], end: { status: "completed" } });
    const second = await accept("three");
    expect(second.created).toBe(true);

    // A thread whose runs were accepted before the column existed names none: its runs are scanned.
    await getPool().query("update threads set active_run_id = null where id = $1", [threadId]);
    await expect(accept("four")).rejects.toMatchObject({ code: "CONFLICT", details: { activeRunId: second.run.runId } });
    await finishRun({ threadId, runId: second.run.id, messages: [], end: { status: "completed" } });
    const third = await accept("five");
    const { rows } = await getPool().query<{ active: string }>("select active_run_id as active from threads where id = $1", [threadId]);
    expect(rows[0]!.active).toBe(third.run.id);
    await expect(accept("six")).rejects.toMatchObject({ code: "CONFLICT", details: { activeRunId: third.run.runId } });
  });

  it("writes a run started here its opening events, the client's state included, and a run it only records none", async () => {
    const threadId = randomUUID();
    const started = { ...input(threadId, "with state"), state: { count: 2 }, parentRunId: "run-before" };
    const first = await acceptRun({ userId, input: started, protocol: "ag-ui", runner: "test", start: true });
    const log = await readEvents({ runId: first.run.id, after: 0, limit: 10 });
    expect(log.map((e) => ({ seq: e.seq, type: e.type, event: JSON.parse(e.json) as unknown }))).toEqual([
      { seq: 1, type: "RUN_STARTED", event: { type: "RUN_STARTED", threadId, runId: started.runId, parentRunId: "run-before" } },
      { seq: 2, type: "STATE_SNAPSHOT", event: { type: "STATE_SNAPSHOT", snapshot: { count: 2 } } },
    ]);
    // The execution is handed the same records, to give its followers as durable.
    expect(first.opened?.records).toEqual(log);

    // Queued behind the run in progress: it opens when it starts, not now.
    const queued = await acceptRun({ userId, input: input(threadId, "later"), protocol: "ag-ui", runner: "test", start: true, multitaskStrategy: "enqueue" });
    expect(queued.position).toBe(1);
    expect(queued.opened).toBeUndefined();
    expect(await readEvents({ runId: queued.run.id, after: 0, limit: 10 })).toEqual([]);

    const recorded = await acceptRun({ userId, input: input(randomUUID(), "recorded only"), protocol: "ag-ui", runner: "test" });
    expect(recorded.opened).toBeUndefined();
    expect(await readEvents({ runId: recorded.run.id, after: 0, limit: 10 })).toEqual([]);
  });

  it("numbers a thread's entry events from 1, once per entry, and a new thread without one from 0", async () => {
    const threadId = randomUUID();
    const entry = (messageId: string): EntryEvent => ({ id: entryEventId({ threadId, messageId }), eventType: "message.received", source: "test", sourceEventType: null, data: {}, rawRef: null });
    const events = async (id: string) => {
      const { rows } = await getPool().query<{ id: string; seq: number }>("select id, seq from agent_events where thread_id = $1 order by seq", [id]);
      const thread = await getPool().query<{ last: number }>("select last_event_seq as last from threads where id = $1", [id]);
      return { events: rows, last: thread.rows[0]?.last };
    };
    const first = await acceptRun({ userId, input: input(threadId, "first"), protocol: "ag-ui", runner: "test", entry: entry("m-1") });
    expect(await events(threadId)).toEqual({ events: [{ id: entry("m-1").id, seq: 1 }], last: 1 });
    await finishRun({ threadId, runId: first.run.id, messages: [], end: { status: "completed" } });
    const second = await acceptRun({ userId, input: input(threadId, "second"), protocol: "ag-ui", runner: "test", entry: entry("m-2") });
    await finishRun({ threadId, runId: second.run.id, messages: [], end: { status: "completed" } });
    // The same entry again (another protocol's delivery of it) is the same event: not numbered twice.
    await acceptRun({ userId, input: input(threadId, "again"), protocol: "ag-ui", runner: "test", entry: entry("m-2") });
    expect(await events(threadId)).toEqual({ events: [{ id: entry("m-1").id, seq: 1 }, { id: entry("m-2").id, seq: 2 }], last: 2 });

    const without = randomUUID();
    await acceptRun({ userId, input: input(without, "no entry"), protocol: "ag-ui", runner: "test" });
    expect(await events(without)).toEqual({ events: [], last: 0 });
  });
});
