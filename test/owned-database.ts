import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { inject } from "vitest";
import { startEmbeddedPostgres, type RunningDatabase } from "@/scripts/lib/embedded-postgres";
import { migrate } from "@/scripts/lib/migrator";
import { startExtraServer, type ExtraServer } from "./extra-server";
import { createTestUser } from "./helpers";

/**
 * A PostgreSQL cluster of a test file's own, migrated, for tests that freeze, stop and restart
 * the database: the shared test database serves the other files running meanwhile.
 */
export type OwnedDatabase = {
  url: string;
  /** Sends `signal` to the postmaster and its backends (SIGSTOP freezes it: connections open, nothing answers). */
  signal(signal: NodeJS.Signals): void;
  /** Stops the cluster (a database that went down). */
  stop(): Promise<void>;
  /** Starts it again on the same port and socket, with the same data. */
  restart(): Promise<void>;
  /** Copies a user the test made on the shared database (and its API keys) into this one. */
  copyUser(userId: string): Promise<void>;
  close(): Promise<void>;
};

export async function startOwnedDatabase(): Promise<OwnedDatabase> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "dispatch-owned-db-"));
  let running: RunningDatabase = await startEmbeddedPostgres({ dataDir: scratch, database: "dispatch" });
  const url = running.url;
  await migrate({ connectionString: url });
  const pgDir = path.join(scratch, "pg");

  const clusterPids = (): number[] => {
    const root = Number(readFileSync(path.join(pgDir, "postmaster.pid"), "utf8").split("\n")[0]);
    const children = readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .filter((pid) => {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
          return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === root;
        } catch {
          return false; // gone meanwhile
        }
      })
      .map(Number);
    return [root, ...children];
  };

  return {
    url,
    signal(signal) {
      for (const pid of clusterPids()) process.kill(pid, signal);
    },
    stop: () => running.stop(),
    async restart() {
      running = await startEmbeddedPostgres({ dataDir: scratch, database: "dispatch" });
      if (running.url !== url) throw new Error("the owned database came back under another address");
    },
    copyUser: (userId) => copyUserInto(url, userId),
    async close() {
      await running.stop().catch(() => {});
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** Copies a user the test made on the shared database (and its API keys) into the database at `url`. */
export async function copyUserInto(url: string, userId: string): Promise<void> {
  const from = new pg.Client({ connectionString: inject("databaseUrl") });
  const to = new pg.Client({ connectionString: url });
  await Promise.all([from.connect(), to.connect()]);
  try {
    for (const [table, column] of [
      ["users", "id"],
      ["api_keys", "user_id"],
    ] as const) {
      const { rows } = await from.query(`select row_to_json(t) as row from ${table} t where ${column} = $1`, [userId]);
      for (const { row } of rows) await to.query(`insert into ${table} select * from json_populate_record(null::${table}, $1)`, [row]);
    }
  } finally {
    await Promise.all([from.end(), to.end()]);
  }
}

/**
 * A server on a database of the test's own, with short timeouts (so an outage answers in seconds),
 * and a fresh user of the shared database copied into it. Stop both with `stopServerOnOwnedDatabase`.
 */
export async function serverOnOwnedDatabase(opts: { role?: "user" | "admin"; env?: Record<string, string> } = {}) {
  const db = await startOwnedDatabase();
  const user = await createTestUser({ role: opts.role ?? "user" });
  await db.copyUser(user.id);
  const server = await startExtraServer({ DATABASE_URL: db.url, DATABASE_CONNECT_TIMEOUT_MS: "1000", DATABASE_STATEMENT_TIMEOUT_MS: "2000", ...opts.env });
  return { db, server, user, apiKey: user.apiKey };
}

export async function stopServerOnOwnedDatabase({ db, server }: { db?: OwnedDatabase; server?: ExtraServer }): Promise<void> {
  server?.child.kill("SIGKILL");
  await db?.close();
}
