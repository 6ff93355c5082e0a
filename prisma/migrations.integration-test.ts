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

describe("the event log's partitioning (20261207230000_partitioned_event_log)", () => {
  const PARTITIONING = "20261207230000_partitioned_event_log";
  const LOG = `select run_id::text, first_seq, last_seq, types, events, created_at::text from run_event_batches order by run_id, first_seq`;

  it("keeps every row of a log written before it, each in its run's month's partition", async () => {
    const url = await freshDatabase();
    const dir = await copyOfMigrations();
    for (const m of await readMigrations(dir)) if (m.name >= PARTITIONING) await rm(join(dir, m.name), { recursive: true });
    await migrate({ connectionString: url, migrationsDir: dir });

    // Runs of three months (one 14 months back), 40 batches each, before the migration.
    const [user, thread] = ["00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"];
    await query(url, `insert into users (id, email, updated_at) values ($1, 'log@example.com', now())`, [user]);
    await query(url, `insert into threads (id, user_id, updated_at) values ($1, $2, now())`, [thread, user]);
    await query(
      url,
      `insert into runs (id, run_id, thread_id, user_id, protocol, runner, deadline_at, status, created_at)
       select gen_random_uuid(), 'run-' || g, $1, $2, 'ag-ui', 'test', now(), 'completed', localtimestamp - make_interval(months => g) from unnest(array[0, 1, 14]) g`,
      [thread, user],
    );
    await query(
      url,
      `insert into run_event_batches (run_id, first_seq, last_seq, types, events, created_at)
       select r.id, s * 2 - 1, s * 2, 'TEXT_MESSAGE_CONTENT TEXT_MESSAGE_CONTENT', '{"delta":"' || s || '"}' || E'\\n' || '{"delta":"é ' || s || '"}', r.created_at + make_interval(secs => s)
       from runs r, generate_series(1, 40) s`,
    );
    const before = await query(url, LOG);
    expect(before).toHaveLength(120);

    expect((await migrate({ connectionString: url })).applied).toContain(PARTITIONING);
    expect(await query(url, LOG)).toEqual(before);
    // Every row carries its run's creation time and sits in that month's partition, none in the default one.
    const homes = await query<{ home: string; expected: string }>(
      url,
      `select distinct b.tableoid::regclass::text as home, 'run_event_batches_' || to_char(r.created_at, 'YYYY_MM') as expected
       from run_event_batches b join runs r on r.id = b.run_id and r.created_at = b.run_created_at`,
    );
    expect(homes).toHaveLength(3);
    for (const h of homes) expect(h.home).toBe(h.expected);
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
