// The benchmark's PostgreSQL: the embedded cluster `npm start` creates under the scratch
// DATA_DIR (started by the bench itself for the phases that run the server directly), or a
// fresh database on the server BENCH_DATABASE_URL names, dropped at the end.
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { ensureDatabase, startEmbeddedPostgres } from "../scripts/lib/embedded-postgres";
import { onCleanup, runScript } from "./processes";

/** A temp folder removed when the bench ends. */
export function scratchDir(): string {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "dispatch-bench-"));
  // As root the embedded PostgreSQL runs as the `postgres` user, which must reach DATA_DIR inside.
  if (process.getuid?.() === 0) chmodSync(scratch, 0o755);
  onCleanup(async () => rmSync(scratch, { recursive: true, force: true }));
  return scratch;
}

/** A fresh, empty database on BENCH_DATABASE_URL's server (`npm start` migrates it), or null. */
export async function externalDatabase(): Promise<string | null> {
  const external = process.env.BENCH_DATABASE_URL;
  if (!external) return null;
  const admin = new URL(external);
  admin.pathname = "/postgres";
  const name = `dispatch_bench_${randomBytes(4).toString("hex")}`;
  await ensureDatabase(admin.toString(), name);
  onCleanup(async () => {
    const c = new pg.Client({ connectionString: admin.toString() });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  });
  const url = new URL(external);
  url.pathname = `/${name}`;
  return url.toString();
}

export type BenchDatabase = { url: string; pid: number | null; stop: () => Promise<void> };

/**
 * The database `npm start` made (already migrated, with the bench user), run by the bench for the
 * phases that start the server on their own. No `npm start` may be running meanwhile.
 */
export async function openDatabase(dataDir: string, external: string | null): Promise<BenchDatabase> {
  if (external) return { url: external, pid: null, stop: async () => {} };
  const cluster = await startEmbeddedPostgres({ dataDir, database: "dispatch" });
  onCleanup(() => cluster.stop());
  return { url: cluster.url, pid: postmasterPid(path.join(dataDir, "pg")), stop: () => cluster.stop() };
}

/** The postmaster of the embedded cluster under DATA_DIR (whoever started it), or null when the bench uses BENCH_DATABASE_URL. */
export function clusterPid(dataDir: string, external: string | null): number | null {
  return external ? null : postmasterPid(path.join(dataDir, "pg"));
}

function postmasterPid(clusterDir: string): number | null {
  try {
    return Number(readFileSync(path.join(clusterDir, "postmaster.pid"), "utf8").split("\n")[0]);
  } catch {
    return null;
  }
}

/** A user with an API key, made by the app's own services (as test/helpers.ts does). */
export async function createBenchUser(env: NodeJS.ProcessEnv): Promise<{ userId: string; apiKey: string }> {
  const out = await runScript("seed-user.ts", [], { env, conditions: ["react-server"], timeoutMs: 60_000 });
  return JSON.parse(out.trim().split("\n").at(-1)!) as { userId: string; apiKey: string };
}
