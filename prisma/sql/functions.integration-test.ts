// The database functions are the files in prisma/sql/functions: a database migrated from zero has
// exactly those functions, defined exactly as the files define them, and the migrator keeps it so
// when a file changes or changes signature. Runs on its own scratch PostgreSQL.
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../../scripts/lib/migrator";
import { startScratchPostgres, type ScratchPostgres } from "../../scripts/lib/scratch-postgres";
import { DEFAULT_FUNCTIONS_DIR, functionDrift, readFunctionFiles } from "../../scripts/lib/sql-functions";

let scratch: ScratchPostgres | undefined;
let workDir = "";
let databases = 0;

beforeAll(async () => {
  scratch = await startScratchPostgres();
  workDir = await mkdtemp(join(tmpdir(), "dispatch-functions-test-"));
});

afterAll(async () => {
  await scratch?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

const freshDatabase = () => scratch!.createDatabase(`functions_${++databases}`);

/** A private copy of prisma/sql/functions that a test may edit. */
async function copyOfFunctions(): Promise<string> {
  const dir = join(workDir, `functions-${++databases}`);
  await cp(DEFAULT_FUNCTIONS_DIR, dir, { recursive: true });
  return dir;
}

async function withClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

const query = <T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []) => withClient(url, async (c) => (await c.query<T>(sql, params)).rows);
const drift = async (url: string, dir = DEFAULT_FUNCTIONS_DIR) => withClient(url, async (c) => functionDrift(c, await readFunctionFiles(dir)));
const signatures = async (url: string, name: string) =>
  (await query<{ s: string }>(url, `SELECT oid::regprocedure::text AS s FROM pg_proc WHERE proname = $1 ORDER BY 1`, [name])).map((r) => r.s);

describe("prisma/sql/functions", () => {
  it("are the database's functions, as the files define them, once migrated from zero", async () => {
    const url = await freshDatabase();
    const files = await readFunctionFiles();
    expect(files.map((f) => f.name)).toContain("dispatch_accept_run");

    const { functions } = await migrate({ connectionString: url });
    expect(functions).toEqual(files.map((f) => f.name));
    expect(await drift(url)).toEqual({ missing: [], withoutFile: [], differing: [] });
  });

  it("drift shows a body edited by hand, a function without a file and a file without a function", async () => {
    const url = await freshDatabase();
    const dir = await copyOfFunctions();
    await migrate({ connectionString: url, functionsDir: dir });
    await query(url, `CREATE OR REPLACE FUNCTION dispatch_run_json(r runs) RETURNS JSON LANGUAGE sql STABLE AS $$ SELECT json_build_object('id', r.id) $$`);
    await query(url, `CREATE FUNCTION dispatch_stray(a INTEGER) RETURNS INTEGER LANGUAGE sql IMMUTABLE AS $$ SELECT a $$`);
    await writeFile(join(dir, "dispatch_new.sql"), `CREATE OR REPLACE FUNCTION dispatch_new() RETURNS INTEGER LANGUAGE sql IMMUTABLE AS $$ SELECT 1 $$;\n`);

    expect(await drift(url, dir)).toEqual({ missing: ["dispatch_new"], withoutFile: ["dispatch_stray(integer)"], differing: ["dispatch_run_json"] });
    // Drift is read in a transaction that is rolled back: the hand edit is still there.
    expect(await drift(url, dir)).toMatchObject({ differing: ["dispatch_run_json"] });
  });

  it("take over a database migrated before the files existed, changing no definition and no row", async () => {
    const url = await freshDatabase();
    const none = join(workDir, `functions-${++databases}`);
    await mkdir(none);
    await migrate({ connectionString: url, functionsDir: none });
    await query(url, `INSERT INTO users (id, email, updated_at) VALUES ('00000000-0000-4000-8000-000000000001', 'a@example.test', now())`);
    await query(url, `INSERT INTO threads (id, user_id, updated_at) VALUES ('00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000001', now())`);
    await query(url, `INSERT INTO messages (id, thread_id, seq, role, message_id, content) VALUES (gen_random_uuid(), '00000000-0000-4000-8000-000000000002', 1, 'user', 'm-1', 'hi')`);
    // Files changed since the migrations last created their functions are applied as changes;
    // every other definition, and every row, stays as it was.
    const { differing } = await drift(url, DEFAULT_FUNCTIONS_DIR);
    const definitions = async () =>
      (await query<{ name: string; def: string }>(url, `SELECT proname AS name, pg_get_functiondef(oid) AS def FROM pg_proc WHERE proname LIKE 'dispatch\\_%' ORDER BY oid`)).filter(
        (f) => !differing.includes(f.name),
      );
    const rowVersion = () => query<{ ctid: string }>(url, `SELECT ctid::text FROM messages`);
    const [before, version] = [await definitions(), await rowVersion()];

    expect((await migrate({ connectionString: url })).functions).toEqual((await readFunctionFiles()).map((f) => f.name));
    expect(await definitions()).toEqual(before);
    if (!differing.includes("dispatch_history_json")) expect(await rowVersion()).toEqual(version);
    expect(await drift(url)).toEqual({ missing: [], withoutFile: [], differing: [] });
  });

  it("are applied once: a start-up with no file changed applies nothing", async () => {
    const url = await freshDatabase();
    await migrate({ connectionString: url });
    expect(await migrate({ connectionString: url })).toEqual({ applied: [], functions: [] });
  });

  it("apply a changed file, and only that one, on the next migrate", async () => {
    const url = await freshDatabase();
    const dir = await copyOfFunctions();
    await migrate({ connectionString: url, functionsDir: dir });
    const file = join(dir, "dispatch_run_json.sql");
    const [current] = (await readFunctionFiles(dir)).filter((f) => f.name === "dispatch_run_json");
    await writeFile(file, current!.sql.replace("'runId', r.run_id,", "'runId', r.run_id, 'edited', true,"));

    expect(await migrate({ connectionString: url, functionsDir: dir })).toEqual({ applied: [], functions: ["dispatch_run_json"] });
    const [def] = await query<{ def: string }>(url, `SELECT pg_get_functiondef('dispatch_run_json(runs)'::regprocedure) AS def`);
    expect(def?.def).toContain("'edited', true");
    expect(await drift(url, dir)).toEqual({ missing: [], withoutFile: [], differing: [] });
  });

  it("drop the old overload when a file declares a new signature", async () => {
    const url = await freshDatabase();
    const dir = await copyOfFunctions();
    await migrate({ connectionString: url, functionsDir: dir });
    await writeFile(
      join(dir, "dispatch_effective_binding.sql"),
      `CREATE OR REPLACE FUNCTION dispatch_effective_binding(p_user_id UUID, p_event_type TEXT) RETURNS TABLE (id UUID, stamp TEXT)
       LANGUAGE sql STABLE AS $$ SELECT b.id, b.updated_at::text FROM agent_bindings b WHERE b.user_id = p_user_id AND p_event_type = ANY(b.event_types) LIMIT 1 $$;\n`,
    );

    expect(await migrate({ connectionString: url, functionsDir: dir })).toMatchObject({ functions: ["dispatch_effective_binding"] });
    expect(await signatures(url, "dispatch_effective_binding")).toEqual(["dispatch_effective_binding(uuid,text)"]);
  });

  it("render stored history again when dispatch_history_json changes", async () => {
    const url = await freshDatabase();
    const dir = await copyOfFunctions();
    await migrate({ connectionString: url, functionsDir: dir });
    await query(url, `INSERT INTO users (id, email, updated_at) VALUES ('00000000-0000-4000-8000-000000000001', 'a@example.test', now())`);
    await query(url, `INSERT INTO threads (id, user_id, updated_at) VALUES ('00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000001', now())`);
    await query(
      url,
      `INSERT INTO messages (id, thread_id, seq, role, message_id, content, created_at) VALUES (gen_random_uuid(), '00000000-0000-4000-8000-000000000002', 1, 'assistant', 'm-1', 'hi', '2026-03-15 10:00:00')`,
    );
    const file = join(dir, "dispatch_history_json.sql");
    const [current] = (await readFunctionFiles(dir)).filter((f) => f.name === "dispatch_history_json");
    await writeFile(file, current!.sql.replace(`'"uiSchema":null'`, `'"uiSchema":null,"v":2'`));

    await migrate({ connectionString: url, functionsDir: dir });
    const [row] = await query<{ history_json: string }>(url, `SELECT history_json FROM messages`);
    expect(JSON.parse(row!.history_json)).toMatchObject({ id: "m-1", role: "assistant", v: 2 });
  });

  it("refuse a file that does not define the function it is named for", async () => {
    const dir = await copyOfFunctions();
    await writeFile(join(dir, "dispatch_misnamed.sql"), `CREATE OR REPLACE FUNCTION dispatch_other() RETURNS INTEGER LANGUAGE sql AS $$ SELECT 1 $$;\n`);
    await expect(readFunctionFiles(dir)).rejects.toThrow(/dispatch_misnamed\.sql must define exactly one function, dispatch_misnamed/);
  });
});
