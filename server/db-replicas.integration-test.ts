import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { createTestUser } from "@/test/helpers";
import { copyUserInto } from "@/test/owned-database";
import { startReplicaCluster, type ReplicaCluster } from "@/test/replica";
import { waitFor } from "@/test/wait";

// Read replicas (docs/scaling.md "Read replicas") against PostgreSQL's own streaming replication:
// a primary and a standby of the test's own (test/replica.ts), and a server reading from both.

let cluster: ReplicaCluster;
let server: ExtraServer;
let apiKey: string;
let output = "";
const METRICS_TOKEN = "replica-metrics-token-0123456789";

beforeAll(async () => {
  cluster = await startReplicaCluster();
  const user = await createTestUser();
  await copyUserInto(cluster.primaryUrl, user.id);
  apiKey = user.apiKey;
  await cluster.caughtUp();
  server = await startExtraServer(
    {
      DATABASE_URL: cluster.primaryUrl,
      DATABASE_REPLICA_URL: cluster.replicaUrl,
      // A paused standby stays readable for a while: the test proves which database answered by
      // what only the primary has.
      DATABASE_REPLICA_MAX_LAG_MS: "60000",
      DATABASE_REPLICA_WAIT_MS: "100",
      DATABASE_REPLICA_CHECK_MS: "50",
      DATABASE_CONNECT_TIMEOUT_MS: "1000",
      LOG_LEVEL: "info",
      METRICS_TOKEN,
    },
    { onOutput: (text) => (output += text) },
  );
}, 120_000);

afterAll(async () => {
  server?.child.kill("SIGKILL");
  await cluster?.close();
});

const auth = () => ({ authorization: `Bearer ${apiKey}` });

/** A run on `threadId`, streamed to its end. */
async function run(threadId: string, text: string): Promise<string> {
  const runId = `run-${randomUUID()}`;
  const res = await fetch(`${server.url}/api/v1/agent/runs`, {
    method: "POST",
    headers: { ...auth(), "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ threadId, runId, state: {}, messages: [{ id: `msg-${randomUUID()}`, role: "user", content: text }], tools: [], context: [], forwardedProps: {} }),
  });
  expect(res.status).toBe(200);
  expect(await res.text()).toContain("RUN_FINISHED");
  return runId;
}

async function history(threadId: string): Promise<{ role: string; content: string }[]> {
  const res = await fetch(`${server.url}/api/v1/agent/history?threadId=${threadId}`, { headers: auth() });
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: { role: string; content: string }[] }).messages;
}

/** The replica's `dispatch_db_replica_up` on the server's metrics endpoint. */
async function replicaUp(): Promise<number> {
  const text = await fetch(`${server.url}/api/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }).then((r) => r.text());
  const line = text.split("\n").find((l) => l.startsWith("dispatch_db_replica_up{"));
  return Number(line?.split(" ").at(-1));
}

const logged = (line: string) => output.split(line).length - 1;

const userTexts = async (threadId: string) => (await history(threadId)).filter((m) => m.role === "user").map((m) => m.content);

/** Changes a thread's first user message on the primary behind the server's back: no user wrote it. */
async function editOnPrimary(threadId: string, content: string): Promise<void> {
  await cluster.onPrimary("update messages set content = $2 where thread_id = $1 and role = 'user' and seq = (select min(seq) from messages where thread_id = $1 and role = 'user')", [threadId, content]);
}

/** The replica's scans of a table: its own statistics, so only reads made there count. */
async function replicaScans(table: string): Promise<number> {
  // A partitioned table (the event log) is scanned in its partitions: their scans are its scans.
  const [row] = await cluster.onReplica<{ scans: string }>(
    "select coalesce(sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0)), 0) as scans from pg_stat_user_tables where relid = $1::regclass or relid in (select relid from pg_partition_tree($1::regclass))",
    [table],
  );
  return Number(row!.scans);
}

/**
 * Reads the thread's history until the replica serves it: once it has replayed the user's last
 * write and the server has seen so (its next position check), which the replica's statistics show.
 */
async function untilReplicaServesHistory(threadId: string): Promise<void> {
  const before = await replicaScans("messages");
  await waitFor(async () => {
    await history(threadId);
    return (await replicaScans("messages")) > before;
  }, 15_000);
}

describe("read replicas", () => {
  const threadId = randomUUID();
  let firstRun = "";

  it("serves /history from the replica", async () => {
    firstRun = await run(threadId, "hello from the first run");
    await cluster.caughtUp();
    await untilReplicaServesHistory(threadId);
    // The standby stops replaying: what the primary gets now, only the primary has.
    await cluster.pauseReplay();
    try {
      await editOnPrimary(threadId, "changed on the primary only");
      expect(await userTexts(threadId)).toEqual(["hello from the first run"]);
    } finally {
      await cluster.resumeReplay();
    }
    await cluster.caughtUp();
    await waitFor(async () => (await userTexts(threadId)).includes("changed on the primary only"), 10_000);
  }, 60_000);

  it("replays a finished run's events from the replica", async () => {
    const before = await replicaScans("run_event_batches");
    const res = await fetch(`${server.url}/api/v1/agent/runs/${firstRun}/events`, { headers: { ...auth(), accept: "text/event-stream" } });
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain("RUN_STARTED");
    expect(body).toContain("RUN_FINISHED");
    // The standby's statistics reach its views within a second or so of the read.
    await waitFor(async () => (await replicaScans("run_event_batches")) > before, 10_000);
  }, 30_000);

  it("shows a client its own write although the replica lags", async () => {
    await cluster.pauseReplay();
    try {
      await run(threadId, "the second run, while the replica lags");
      expect(await userTexts(threadId)).toEqual(["changed on the primary only", "the second run, while the replica lags"]);
      const events = await fetch(`${server.url}/api/v1/agent/history?threadId=${threadId}`, { headers: auth() }).then((r) => r.json() as Promise<{ messages: { role: string }[] }>);
      expect(events.messages.filter((m) => m.role === "assistant")).toHaveLength(2);
    } finally {
      await cluster.resumeReplay();
    }
  }, 60_000);

  it("reads from the primary, with no error, when the replica dies; and from the replica when it is back", async () => {
    await cluster.caughtUp();
    const inUse = logged("database replica in use");
    await cluster.killReplica();
    // Right away: the server has not noticed yet, its read fails there and goes to the primary.
    expect(await userTexts(threadId)).toEqual(["changed on the primary only", "the second run, while the replica lags"]);
    const res = await fetch(`${server.url}/api/v1/agent/runs/${firstRun}/events`, { headers: { ...auth(), accept: "text/event-stream" } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("RUN_FINISHED");
    await waitFor(() => output.includes("database replica not used"), 10_000);
    expect(await replicaUp()).toBe(0);
    await run(threadId, "a third run, the replica down");
    expect(await userTexts(threadId)).toContain("a third run, the replica down");

    await cluster.startReplica();
    await cluster.caughtUp();
    await waitFor(() => logged("database replica in use") > inUse, 10_000);
    expect(await replicaUp()).toBe(1);
    await untilReplicaServesHistory(threadId);
    // Proof that the replica answers again: what only the primary has is not in the page.
    await cluster.pauseReplay();
    try {
      await editOnPrimary(threadId, "changed again on the primary only");
      expect((await userTexts(threadId))[0]).toBe("changed on the primary only");
    } finally {
      await cluster.resumeReplay();
    }
  }, 90_000);
});
