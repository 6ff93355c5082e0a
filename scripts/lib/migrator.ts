import { createHash, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Logger, runMigrations } from "graphile-worker";
import pg from "pg";
import { applyFunctionFiles, DEFAULT_FUNCTIONS_DIR, readFunctionFiles } from "./sql-functions";

// Applies prisma/migrations/<timestamp>_<name>/migration.sql in folder-name order and records
// them in `_prisma_migrations` exactly as `prisma migrate deploy` does, so a deployment that can
// run Prisma's own engine can take over the same database (and vice versa). Then, under the same
// lock, it brings the database functions to prisma/sql/functions (./sql-functions.ts has the
// rules): migrations are history, the function files are the current definitions. A deployment
// that migrates with `prisma migrate deploy` runs this migrator afterwards for the functions.

export const DEFAULT_MIGRATIONS_DIR = fileURLToPath(new URL("../../prisma/migrations", import.meta.url));

/** Prisma's own advisory lock key: our migrator and `prisma migrate deploy` exclude each other. */
const PRISMA_MIGRATE_LOCK_KEY = 72707369;

const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export interface MigrationFile {
  /** The folder name, e.g. `20250101000000_init`: what `_prisma_migrations.migration_name` holds. */
  name: string;
  sql: string;
  /** sha256 hex of migration.sql, as Prisma records it. */
  checksum: string;
}

export interface MigrateOptions {
  connectionString: string;
  migrationsDir?: string;
  functionsDir?: string;
  log?: (line: string) => void;
}

/** The database could not be reached at all (as opposed to a migration failing). */
export class DatabaseConnectionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "DatabaseConnectionError";
  }
}

export function migrationChecksum(sql: string): string {
  return createHash("sha256").update(sql).digest("hex");
}

/** Prisma accepts a checksum computed before git converted line endings, so do we. */
function checksumMatches(sql: string, recorded: string): boolean {
  const variants = [sql, sql.replace(/\r\n/g, "\n"), sql.replace(/\r?\n/g, "\r\n")];
  return variants.some((v) => migrationChecksum(v) === recorded);
}

/** Migrations in the order Prisma applies them: sorted by folder name. */
export async function readMigrations(migrationsDir: string = DEFAULT_MIGRATIONS_DIR): Promise<MigrationFile[]> {
  if (!existsSync(migrationsDir)) throw new Error(`Migrations folder not found: ${migrationsDir}`);
  const entries = await readdir(migrationsDir, { withFileTypes: true });
  const folders = entries.filter((e) => e.isDirectory()).map((e) => e.name);
  folders.sort();
  return Promise.all(
    folders.map(async (name) => {
      const file = join(migrationsDir, name, "migration.sql");
      if (!existsSync(file)) throw new Error(`Migration ${name} has no migration.sql (${file})`);
      const sql = await readFile(file, "utf8");
      return { name, sql, checksum: migrationChecksum(sql) };
    }),
  );
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
}

/** Where a connection string points, never with its password. */
export function describeConnection(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    return `${url.hostname}:${url.port || 5432}${url.pathname}`;
  } catch {
    return "(unparseable connection string)";
  }
}

async function connect(connectionString: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    return client;
  } catch (e) {
    await client.end().catch(() => undefined);
    const reason = e instanceof Error ? e.message : String(e);
    throw new DatabaseConnectionError(`Cannot connect to PostgreSQL at ${describeConnection(connectionString)}: ${reason}`, { cause: e });
  }
}

/** Refuses histories Prisma would refuse too, naming the migration to look at. */
function checkHistory(local: MigrationFile[], rows: AppliedRow[], log: (line: string) => void): Set<string> {
  const failed = rows.find((r) => r.finished_at === null);
  if (failed) {
    throw new Error(
      `Migration ${failed.migration_name} failed in an earlier run (_prisma_migrations has it with no finished_at), so nothing was applied. ` +
        "Repair the database by hand, then record the outcome (`prisma migrate resolve --rolled-back|--applied <name>`, or set " +
        "rolled_back_at or finished_at on that row) and migrate again.",
    );
  }
  const byName = new Map(local.map((m) => [m.name, m]));
  for (const row of rows) {
    const file = byName.get(row.migration_name);
    if (!file) {
      log(`warning: migration ${row.migration_name} is applied to the database but missing from the migrations folder`);
    } else if (!checksumMatches(file.sql, row.checksum)) {
      throw new Error(
        `Migration ${row.migration_name} was modified after it was applied: its migration.sql checksum (${file.checksum}) ` +
          `differs from the one recorded in _prisma_migrations (${row.checksum}). Restore the original file and put the change in a new migration.`,
      );
    }
  }
  return new Set(rows.map((r) => r.migration_name));
}

async function applyOne(client: pg.Client, migration: MigrationFile): Promise<void> {
  const id = randomUUID();
  await client.query("BEGIN");
  try {
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)`,
      [id, migration.checksum, migration.name],
    );
    await client.query(migration.sql);
    await client.query(
      `UPDATE "_prisma_migrations" SET finished_at = clock_timestamp(), applied_steps_count = applied_steps_count + 1 WHERE id = $1`,
      [id],
    );
    await client.query("COMMIT");
  } catch (e) {
    await client.query("ROLLBACK").catch(() => undefined);
    const reason = e instanceof Error ? e.message : String(e);
    // The transaction left the database as it was, so nothing is recorded and a fixed file can be retried.
    throw new Error(`Migration ${migration.name} failed and was rolled back: ${reason}`, { cause: e });
  }
}

/**
 * Applies the pending migrations, each in its own transaction, then the function files that
 * changed, in one more, all under Prisma's migration lock. `applied` names the migrations,
 * `functions` the function files.
 */
export async function migrate(opts: MigrateOptions): Promise<{ applied: string[]; functions: string[] }> {
  const log = opts.log ?? (() => {});
  const migrations = await readMigrations(opts.migrationsDir ?? DEFAULT_MIGRATIONS_DIR);
  const functionFiles = await readFunctionFiles(opts.functionsDir ?? DEFAULT_FUNCTIONS_DIR);
  const client = await connect(opts.connectionString);
  try {
    const { rows: lock } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [PRISMA_MIGRATE_LOCK_KEY]);
    if (!lock[0]?.locked) {
      log("Waiting for another process to finish migrating this database");
      await client.query("SELECT pg_advisory_lock($1)", [PRISMA_MIGRATE_LOCK_KEY]);
    }
    try {
      await client.query(CREATE_MIGRATIONS_TABLE);
      const { rows } = await client.query<AppliedRow>(
        `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL ORDER BY started_at`,
      );
      const done = checkHistory(migrations, rows, log);
      const pending = migrations.filter((m) => !done.has(m.name));
      // graphile-worker's schema (the run queue) first: our functions add its jobs.
      await migrateQueueSchema(opts.connectionString);
      for (const migration of pending) {
        log(`Applying migration ${migration.name}`);
        await applyOne(client, migration);
      }
      const functions = await applyFunctionFiles(client, functionFiles, log);
      return { applied: pending.map((m) => m.name), functions };
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [PRISMA_MIGRATE_LOCK_KEY]).catch(() => undefined);
    }
  } finally {
    await client.end();
  }
}

/**
 * Installs or upgrades graphile-worker's own schema (`graphile_worker`), under our lock so that
 * two instances starting together never run its migrations at once. Its migrations go over their
 * own connection, as its API takes a connection string or a pool.
 */
async function migrateQueueSchema(connectionString: string): Promise<void> {
  await runMigrations({ connectionString, logger: new Logger(() => (level, message) => {
    if (level === "error" || level === "warning") console.error(`[graphile-worker] ${message}`);
  }) });
}
