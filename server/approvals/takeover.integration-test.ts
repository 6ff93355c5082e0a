import { randomUUID } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { waitForRunEnd } from "@/test/runs";
import { collectSse } from "@/test/sse";
import { waitFor } from "@/test/wait";
import { decide, history, interruptedRun, type Event } from "./test-support";

// docs/approvals.md, "Exactly once": the instance executing an approval's continuation dies
// (kill -9) right after the continuation claimed the approved action, with the action's write
// under way and not committed. Another instance takes the run over, runs the action again with
// the same key (user, the run that asked, the call's id), and the action happens once: one
// calendar event, one answer to the call, the model told it was done, the request decided.

let owner: Awaited<ReturnType<typeof createTestUser>>;
let doomed: ExtraServer | undefined;
let blocker: pg.Client | undefined;

beforeAll(async () => {
  baseUrl(); // needs a production build
  owner = await createTestUser();
  doomed = await startExtraServer();
}, 90_000);

afterAll(async () => {
  doomed?.child.kill("SIGKILL");
  await blocker?.end().catch(() => undefined);
});

function killed(server: ExtraServer): Promise<void> {
  server.child.kill("SIGKILL");
  return new Promise<void>((resolve) => (server.child.exitCode !== null || server.child.signalCode !== null ? resolve() : server.child.once("exit", () => resolve())));
}

/**
 * Holds the tool-effect key of the approved call in an open transaction of the test's own, so the
 * executing instance's write waits on it (claimed, not committed) until the test lets go.
 */
async function holdToolEffect(key: { userId: string; runId: string; toolCallId: string }): Promise<{ pid: number; release: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: inject("databaseUrl") });
  blocker = client;
  await client.connect();
  const pid = (await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
  await client.query("begin");
  await client.query(`insert into tool_effects (user_id, run_id, tool_call_id, action, input_hash) values ($1, $2, $3, 'calendar.create', 'held')`, [key.userId, key.runId, key.toolCallId]);
  return { pid, release: async () => void (await client.query("rollback")) };
}

const waitingOn = async (pid: number) => (await getPool().query(`select 1 from pg_stat_activity where $1 = any(pg_blocking_pids(pid))`, [pid])).rowCount === 1;

describe("an approved action whose executor dies right after claiming it", () => {
  it("runs once, on the instance that takes the run over", async () => {
    const title = `Takeover sync ${randomUUID().slice(0, 8)}`;
    const create = JSON.stringify({ title, start_at: "2026-04-21T10:00:00+08:00", duration_minutes: 30 });
    const asked = await interruptedRun(owner.apiKey, `book it [[tool:calendar.create ${create}]]`);
    const { rows: askedRows } = await getPool().query<{ runId: string }>(`select run_id as "runId" from approvals where id = $1`, [asked.interrupt.id]);
    const held = await holdToolEffect({ userId: owner.id, runId: askedRows[0]!.runId, toolCallId: asked.interrupt.toolCallId });

    // Approved on the doomed instance, which starts the continuation and claims the approval.
    const approved = await decide(owner.apiKey, asked.interrupt.id, { approve: true }, { base: doomed!.url });
    expect(approved.status).toBe(202);
    const { task } = (await approved.json()) as { task: { taskId: string; runId: string } };
    await waitFor(async () => {
      const { rows } = await getPool().query(`select 1 from approvals where id = $1 and resolved_run_id = $2`, [asked.interrupt.id, task.taskId]);
      return rows.length === 1 && (await waitingOn(held.pid));
    }, 30_000);
    await killed(doomed!);
    await held.release();

    const end = await waitForRunEnd(owner.apiKey, task.runId, 60_000);
    expect(end).toMatchObject({ status: "completed", error: null });
    const { rows: attempts } = await getPool().query<{ attempt: number }>(`select attempt from runs where id = $1`, [task.taskId]);
    expect(attempts[0]!.attempt).toBeGreaterThan(1);

    // The event exists once, and the call has one answer, the model told it was done.
    const { rows: created } = await getPool().query(`select 1 from calendar_events where owner_id = $1 and title = $2`, [owner.id, title]);
    expect(created).toHaveLength(1);
    const log = (await collectSse(await fetch(`${baseUrl()}/api/v1/agent/runs/${encodeURIComponent(task.runId)}/events`, { headers: bearer(owner.apiKey) }))).map(
      (f) => JSON.parse(f.data) as Event,
    );
    const results = log.filter((e) => e.type === "TOOL_CALL_RESULT" && e.toolCallId === asked.interrupt.toolCallId);
    expect(results).toHaveLength(1);
    expect((results[0]!.metadata as { ui_schema: { status: string } }).ui_schema.status).toBe("success");
    expect(log.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("")).toContain("Tool said:");

    // The thread keeps one answer to the call, and the request reads as decided, not pending.
    const messages = (await history(owner.apiKey, asked.threadId)).messages;
    expect(messages.filter((m) => m.role === "tool")).toHaveLength(1);
    expect(messages.find((m) => m.approval)).toBeUndefined();
    const { rows: approval } = await getPool().query(`select status, resolved_run_id from approvals where id = $1`, [asked.interrupt.id]);
    expect(approval[0]).toMatchObject({ status: "approved", resolved_run_id: task.taskId });
  });
});
