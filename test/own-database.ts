import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { startEmbeddedPostgres } from "@/scripts/lib/embedded-postgres";
import { migrate } from "@/scripts/lib/migrator";

/**
 * A migrated PostgreSQL of this test file's own, made the process's DATABASE_URL and stopped after
 * the file: for tests whose duties act on every row of their database (archive, retention). Call it
 * before any app module loads (they read DATABASE_URL once), so this file imports none of them;
 * test/owned-database.ts is the one for tests that stop and restart a database beside the shared one.
 */
export async function startOwnDatabase(name: string): Promise<{ url: string }> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), `dispatch-${name}-db-`));
  const database = await startEmbeddedPostgres({ dataDir: scratch, database: "dispatch" });
  await migrate({ connectionString: database.url });
  process.env.DATABASE_URL = database.url;
  afterAll(async () => {
    await database.stop().catch(() => {});
    rmSync(scratch, { recursive: true, force: true });
  });
  return { url: database.url };
}
