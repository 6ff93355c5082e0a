// The committed migrations must build exactly the database prisma/schema.prisma describes, and the
// migrator must keep `_prisma_migrations` the way `prisma migrate deploy` does. Runs on its own
// scratch PostgreSQL, one fresh database per test.
import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SCHEMA_PATH, diffMigrationsToSchema } from "../scripts/lib/migration-diff";
import { DEFAULT_MIGRATIONS_DIR, migrate, readMigrations } from "../scripts/lib/migrator";
import { startScratchPostgres, type ScratchPostgres } from "../scripts/lib/scratch-postgres";

let scratch: ScratchPostgres | undefined;
let workDir = "";
let databases = 0;

beforeAll(async () => {
  scratch = await startScratchPostgres();
  workDir = await mkdtemp(join(tmpdir(), "dispatch-migrations-test-"));
});

afterAll(async () => {
  await scratch?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

const freshDatabase = () => scratch!.createDatabase(`migrations_${++databases}`);

/** A private copy of prisma/migrations that a test may add to or edit. */
async function copyOfMigrations(): Promise<string> {
  const dir = join(workDir, `migrations-${++databases}`);
  await cp(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true });
  return dir;
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

describe("prisma/migrations", () => {
  it("build exactly the schema in prisma/schema.prisma (when this fails: npm run db:new-migration -- <name>)", async () => {
    const sql = await diffMigrationsToSchema({ shadowDatabaseUrl: await freshDatabase() });
    expect(sql, `prisma/schema.prisma has changes no migration contains:\n${sql}`).toBe("");
  });

  it("drift check reports a schema change that has no migration", async () => {
    const schema = await readFile(DEFAULT_SCHEMA_PATH, "utf8");
    const changed = schema.replace(/model User \{\n/, "model User {\n  nickname String?\n");
    expect(changed).not.toBe(schema);
    const schemaPath = join(workDir, "schema.prisma");
    await writeFile(schemaPath, changed);

    const sql = await diffMigrationsToSchema({ schemaPath, shadowDatabaseUrl: await freshDatabase() });
    expect(sql).toMatch(/ALTER TABLE "users" ADD COLUMN\s+"nickname" TEXT;/);
  });
});

describe("migrate()", () => {
  it("applies every migration once, and a second run changes nothing", async () => {
    const url = await freshDatabase();
    const names = (await readMigrations()).map((m) => m.name);
    expect(names.length).toBeGreaterThan(0);

    expect(await migrate({ connectionString: url })).toMatchObject({ applied: names });
    expect(await migrate({ connectionString: url })).toEqual({ applied: [], functions: [] });
    const rows = await query<{ n: string }>(url, `SELECT count(*) AS n FROM "_prisma_migrations"`);
    expect(Number(rows[0]?.n)).toBe(names.length);
  });

  it("records migrations as prisma migrate deploy does: sha256 of migration.sql, finished, one step", async () => {
    const url = await freshDatabase();
    await migrate({ connectionString: url });
    const [first] = await readMigrations();
    const sql = await readFile(join(DEFAULT_MIGRATIONS_DIR, first!.name, "migration.sql"));
    const [row] = await query<Record<string, unknown>>(url, `SELECT * FROM "_prisma_migrations" WHERE migration_name = $1`, [first!.name]);

    expect(row).toMatchObject({
      checksum: createHash("sha256").update(sql).digest("hex"),
      logs: null,
      rolled_back_at: null,
      applied_steps_count: 1,
    });
    expect(row?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(row?.finished_at).toBeInstanceOf(Date);
    expect((row?.finished_at as Date).getTime()).toBeGreaterThanOrEqual((row?.started_at as Date).getTime());
  });

  it("lets only one of two simultaneous runs apply the migrations", async () => {
    const url = await freshDatabase();
    const results = await Promise.all([migrate({ connectionString: url }), migrate({ connectionString: url })]);
    const applied = results.map((r) => r.applied.length).sort();
    expect(applied).toEqual([0, (await readMigrations()).length]);
  });

  it("refuses a migration whose migration.sql changed after it was applied", async () => {
    const url = await freshDatabase();
    const dir = await copyOfMigrations();
    await migrate({ connectionString: url, migrationsDir: dir });
    const [first] = await readMigrations(dir);
    await writeFile(join(dir, first!.name, "migration.sql"), `${first!.sql}\n-- edited afterwards\n`);

    await expect(migrate({ connectionString: url, migrationsDir: dir })).rejects.toThrow(
      new RegExp(`Migration ${first!.name} was modified after it was applied`),
    );
  });

  it("refuses to run while an earlier migration is recorded as failed", async () => {
    const url = await freshDatabase();
    await migrate({ connectionString: url });
    await query(
      url,
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name) VALUES ('00000000-0000-4000-8000-000000000000', $1, '20990101000000_broken')`,
      ["0".repeat(64)],
    );

    await expect(migrate({ connectionString: url })).rejects.toThrow(/Migration 20990101000000_broken failed in an earlier run/);
  });

  it("rolls a failing migration back completely and records nothing, so a fixed file can run", async () => {
    const url = await freshDatabase();
    const dir = await copyOfMigrations();
    await migrate({ connectionString: url, migrationsDir: dir });
    const name = "20990101000000_bad";
    await mkdir(join(dir, name));
    await writeFile(join(dir, name, "migration.sql"), `CREATE TABLE "half_done" (id INT);\nSELECT no_such_function();\n`);

    await expect(migrate({ connectionString: url, migrationsDir: dir })).rejects.toThrow(new RegExp(`Migration ${name} failed and was rolled back`));
    expect(await query(url, `SELECT 1 FROM information_schema.tables WHERE table_name = 'half_done'`)).toEqual([]);
    expect(await query(url, `SELECT 1 FROM "_prisma_migrations" WHERE migration_name = $1`, [name])).toEqual([]);

    await writeFile(join(dir, name, "migration.sql"), `CREATE TABLE "half_done" (id INT);\n`);
    expect(await migrate({ connectionString: url, migrationsDir: dir })).toEqual({ applied: [name], functions: [] });
  });
});
