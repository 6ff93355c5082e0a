import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReplicaCluster, type ReplicaCluster } from "@/test/replica";
import { waitFor } from "@/test/wait";
import { createReplicaSet, parseLsn, type ReplicaSet } from "./db-replicas";

// Where server/db-replicas.ts sends a read, on real streaming replication (test/replica.ts): what
// only the primary has tells which database answered. db-replicas.integration-test.ts does the same
// through a server's HTTP doors.

let cluster: ReplicaCluster;
let primary: pg.Pool;
let replicas: ReplicaSet;

/** A pool whose idle connections may be cut (the replica killed) without an unhandled error, as server/db.ts's. */
function quietPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: 1_000 });
  pool.on("error", () => {});
  return pool;
}

beforeAll(async () => {
  cluster = await startReplicaCluster();
  await cluster.onPrimary("create table replica_probe (id int primary key, value text)");
  await cluster.onPrimary("insert into replica_probe values (1, 'replayed')");
  await cluster.caughtUp();
  primary = quietPool(cluster.primaryUrl);
  replicas = createReplicaSet({
    urls: [cluster.replicaUrl],
    maxLagMs: 60_000,
    waitMs: 100,
    checkMs: 60_000,
    primary: () => primary,
    openPool: quietPool,
  });
  await replicas.check();
}, 120_000);

afterAll(async () => {
  await replicas?.close();
  await primary?.end();
  await cluster?.close();
});

async function probe(after?: Parameters<ReplicaSet["readDb"]>[0]): Promise<string> {
  const { rows } = await replicas.readDb(after).query<{ value: string }>("select value from replica_probe where id = 1");
  return rows[0]!.value;
}

/** The primary gets a value the paused standby does not replay. */
async function primaryOnly(value: string): Promise<void> {
  await cluster.pauseReplay();
  await cluster.onPrimary("update replica_probe set value = $1 where id = 1", [value]);
}

describe("read routing", () => {
  it("compares WAL positions as numbers", () => {
    expect(parseLsn("0/16B3748") < parseLsn("0/16B3750")).toBe(true);
    expect(parseLsn("1/0") > parseLsn("0/FFFFFFFF")).toBe(true);
  });

  it("reads a current replica; a user's own write, and 'now', wait for it and then take the primary", async () => {
    await primaryOnly("primary only");
    expect(await probe()).toBe("replayed");
    expect(await probe({ user: "someone" })).toBe("replayed");
    replicas.noteWrite("writer");
    expect(await probe({ user: "writer" })).toBe("primary only");
    expect(await probe("now")).toBe("primary only");
    expect(await probe({ user: "someone" })).toBe("replayed");
    await cluster.resumeReplay();
    await cluster.caughtUp();
    // Replayed now: the fence is met on the replica itself.
    expect(await probe("now")).toBe("primary only");
    await replicas.check();
    expect(await probe({ user: "writer" })).toBe("primary only");
    // What the metrics endpoint shows: the replica up and current, and where the reads went.
    const stats = replicas.stats();
    expect(stats.replicas).toEqual([expect.objectContaining({ up: true, reads: expect.any(Number) })]);
    expect(stats.replicas[0]!.reads).toBeGreaterThanOrEqual(4);
    expect(stats.primaryReads).toBeGreaterThanOrEqual(2);
    expect(stats.replicas[0]!.lagSeconds).toBeLessThan(60);
  });

  it("takes the primary, with no error, when the replica dies, and the replica again when it is back", async () => {
    await cluster.killReplica();
    expect(await probe()).toBe("primary only");
    await replicas.check();
    expect(await probe()).toBe("primary only");

    await cluster.startReplica();
    await cluster.caughtUp();
    await replicas.check();
    await primaryOnly("primary only again");
    expect(await probe()).toBe("primary only");
    await cluster.resumeReplay();
  }, 60_000);

  it("stops reading a replica further behind than the lag bound", async () => {
    const strict = createReplicaSet({
      urls: [cluster.replicaUrl],
      maxLagMs: 100,
      waitMs: 0,
      checkMs: 60_000,
      primary: () => primary,
      openPool: quietPool,
    });
    try {
      await cluster.caughtUp();
      await strict.check();
      await primaryOnly("behind");
      // Its position, sampled after the write, is one the paused replica never reaches: once that is
      // older than the bound, the primary answers.
      const read = () => strict.readDb().query<{ value: string }>("select value from replica_probe where id = 1").then((r) => r.rows[0]!.value);
      await waitFor(async () => {
        await strict.check();
        return (await read()) === "behind";
      }, 5_000);
    } finally {
      await strict.close();
      await cluster.resumeReplay();
    }
  });
});
