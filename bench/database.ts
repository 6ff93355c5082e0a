// A throwaway PostgreSQL for one benchmark: the embedded cluster in a temp folder (or a
// fresh database on the server BENCH_DATABASE_URL names), migrated, dropped at the end.
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { ensureDatabase, startEmbeddedPostgres } from "../scripts/lib/embedded-postgres";
import { migrate } from "../scripts/lib/migrator";
import { onCleanup, runScript } from "./processes";

export type BenchDatabase = { url: string; scratch: string; pid: number | null };

export async function startDatabase(): Promise<BenchDatabase> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "dispatch-bench-"));
  onCleanup(async () => rmSync(scratch, { recursive: true, force: true }));
  const external = process.env.BENCH_DATABASE_URL;
  const cluster = external ? null : await startEmbeddedPostgres({ dataDir: scratch, database: "postgres", persistent: false });
  if (cluster) onCleanup(() => cluster.stop());
  const serverUrl = new URL(external ?? cluster!.url);
  const admin = new URL(serverUrl);
  admin.pathname = "/postgres";
  const name = `dispatch_bench_${randomBytes(4).toString("hex")}`;
  await ensureDatabase(admin.toString(), name);
  onCleanup(async () => {
    const c = new pg.Client({ connectionString: admin.toString() });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  });
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  await migrate({ connectionString: url.toString() });
  return { url: url.toString(), scratch, pid: cluster ? postmasterPid(path.join(scratch, "pg")) : null };
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
