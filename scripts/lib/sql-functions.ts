import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import type pg from "pg";

// The database functions, each the current definition in prisma/sql/functions/<name>.sql. The
// migrator applies them after the migrations, under the same lock. The rules (prisma/README.md):
// - a file defines exactly one function, named as the file, with CREATE OR REPLACE FUNCTION;
// - the file is the only definition of its name: when it is applied, every other overload of that
//   name is dropped, so a changed signature needs nothing else (a drop that something still
//   depends on fails, and the whole step is rolled back);
// - what was applied is recorded as the function's comment (`sha256:<hex of the file>`), so a
//   start-up with nothing changed reads one catalog query and writes nothing; Prisma's schema
//   diff does not see comments on functions, as it would a bookkeeping table;
// - a function whose body changed is followed by what stores its results: stored generated
//   columns are computed again and expression indexes rebuilt;
// - nothing is dropped for a deleted file: a migration drops the function (an older build started
//   against a newer database must not drop what the newer migrations rely on).

export const DEFAULT_FUNCTIONS_DIR = fileURLToPath(new URL("../../prisma/sql/functions", import.meta.url));

const MARK = "sha256:";

export interface FunctionFile {
  /** The file's name without `.sql`: the function it defines. */
  name: string;
  sql: string;
  /** sha256 hex of the file with LF line endings, so a checkout with CRLF records the same. */
  checksum: string;
}

export async function readFunctionFiles(dir: string = DEFAULT_FUNCTIONS_DIR): Promise<FunctionFile[]> {
  if (!existsSync(dir)) throw new Error(`Database functions folder not found: ${dir}`);
  const names = (await readdir(dir)).filter((f) => f.endsWith(".sql")).sort();
  return Promise.all(
    names.map(async (file) => {
      const name = basename(file, ".sql");
      const sql = await readFile(join(dir, file), "utf8");
      const defines = [...sql.matchAll(/create\s+or\s+replace\s+function\s+("?)([a-z_][a-z0-9_]*)\1\s*\(/gi)].map((m) => m[2]);
      if (defines.length !== 1 || defines[0] !== name) {
        throw new Error(`${file} must define exactly one function, ${name}, with CREATE OR REPLACE FUNCTION ${name}(...) (it defines: ${defines.join(", ") || "none"})`);
      }
      return { name, sql, checksum: createHash("sha256").update(sql.replace(/\r\n/g, "\n")).digest("hex") };
    }),
  );
}

interface CatalogRow {
  oid: string;
  name: string;
  signature: string;
  comment: string | null;
}

/** The functions of the current schema that no extension owns. */
async function readCatalog(client: pg.Client | pg.PoolClient): Promise<CatalogRow[]> {
  const { rows } = await client.query<CatalogRow>(
    `SELECT p.oid::text AS oid, p.proname AS name, p.oid::regprocedure::text AS signature, obj_description(p.oid, 'pg_proc') AS comment
     FROM pg_proc p
     WHERE p.pronamespace = current_schema()::regnamespace AND p.prokind = 'f'
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
     ORDER BY p.proname, p.oid`,
  );
  return rows;
}

function isCurrent(file: FunctionFile, catalog: CatalogRow[]): boolean {
  const named = catalog.filter((r) => r.name === file.name);
  return named.length === 1 && named[0]!.comment === MARK + file.checksum;
}

async function definitions(client: pg.Client, name: string): Promise<Map<string, string>> {
  const { rows } = await client.query<{ oid: string; def: string }>(
    `SELECT p.oid::text AS oid, pg_get_functiondef(p.oid) AS def FROM pg_proc p WHERE p.proname = $1 AND p.pronamespace = current_schema()::regnamespace`,
    [name],
  );
  return new Map(rows.map((r) => [r.oid, r.def]));
}

/** Stored generated columns and expression indexes hold the old function's results: redo them. */
async function refreshDependents(client: pg.Client, oid: string, log: (line: string) => void): Promise<void> {
  const { rows: columns } = await client.query<{ tbl: string; col: string; keep: string }>(
    `SELECT a.attrelid::regclass::text AS tbl, a.attname AS col,
       (SELECT quote_ident(k.attname) FROM pg_depend c JOIN pg_attribute k ON k.attrelid = c.refobjid AND k.attnum = c.refobjsubid
        WHERE c.classid = 'pg_attrdef'::regclass AND c.objid = ad.oid AND c.refclassid = 'pg_class'::regclass AND c.refobjsubid > 0
        ORDER BY k.attnum LIMIT 1) AS keep
     FROM pg_depend d JOIN pg_attrdef ad ON d.classid = 'pg_attrdef'::regclass AND d.objid = ad.oid
     JOIN pg_attribute a ON a.attrelid = ad.adrelid AND a.attnum = ad.adnum
     WHERE d.refclassid = 'pg_proc'::regclass AND d.refobjid = $1 AND a.attgenerated = 's'`,
    [oid],
  );
  for (const c of columns) {
    log(`Computing ${c.tbl}.${c.col} again with the new definition`);
    // An update computes a stored generated column again when it sets a column the column is computed from.
    await client.query(`UPDATE ${c.tbl} SET ${c.keep} = ${c.keep}`);
  }
  const { rows: indexes } = await client.query<{ idx: string }>(
    `SELECT d.objid::regclass::text AS idx FROM pg_depend d JOIN pg_class i ON i.oid = d.objid AND i.relkind = 'i'
     WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_proc'::regclass AND d.refobjid = $1`,
    [oid],
  );
  for (const i of indexes) await client.query(`REINDEX INDEX ${i.idx}`);
}

async function applyFile(client: pg.Client, file: FunctionFile, log: (line: string) => void): Promise<void> {
  const before = await definitions(client, file.name);
  await client.query(file.sql);
  // The row of the function this file just created or replaced was written by this transaction.
  const { rows } = await client.query<{ oid: string; def: string }>(
    `SELECT p.oid::text AS oid, pg_get_functiondef(p.oid) AS def FROM pg_proc p
     WHERE p.proname = $1 AND p.pronamespace = current_schema()::regnamespace AND age(p.xmin) = 0`,
    [file.name],
  );
  if (rows.length !== 1) throw new Error(`${file.name}.sql did not create the function ${file.name} in schema ${await currentSchema(client)}`);
  const created = rows[0]!;
  for (const oid of before.keys()) {
    if (oid === created.oid) continue;
    const signature = await signatureOf(client, oid);
    log(`Dropping ${signature}: ${file.name}.sql declares another signature`);
    await client.query(`DROP FUNCTION ${signature}`);
  }
  await client.query(`COMMENT ON FUNCTION ${await signatureOf(client, created.oid)} IS '${MARK}${file.checksum}'`);
  const old = before.get(created.oid);
  if (old !== undefined && old !== created.def) await refreshDependents(client, created.oid, log);
}

async function signatureOf(client: pg.Client, oid: string): Promise<string> {
  const { rows } = await client.query<{ signature: string }>(`SELECT $1::oid::regprocedure::text AS signature`, [oid]);
  return rows[0]!.signature;
}

async function currentSchema(client: pg.Client): Promise<string> {
  const { rows } = await client.query<{ s: string }>("SELECT current_schema() AS s");
  return rows[0]!.s;
}

/**
 * Brings the database's functions to the files, in one transaction; the caller holds the
 * migration lock. Returns the names of the files it applied (none when everything was current).
 */
export async function applyFunctionFiles(client: pg.Client, files: FunctionFile[], log: (line: string) => void): Promise<string[]> {
  const catalog = await readCatalog(client);
  const pending = files.filter((f) => !isCurrent(f, catalog));
  if (pending.length === 0) return [];
  await client.query("BEGIN");
  try {
    // As pg_dump does: a SQL function's body is checked when it is created, so with checks on the
    // files would have to come in the order they call each other. The drift test creates each
    // one with checks on.
    await client.query("SET LOCAL check_function_bodies = off");
    for (const file of pending) {
      log(`Applying function ${file.name}`);
      await applyFile(client, file, log);
    }
    await client.query("COMMIT");
  } catch (e) {
    await client.query("ROLLBACK").catch(() => undefined);
    const reason = e instanceof Error ? e.message : String(e);
    throw new Error(`Applying prisma/sql/functions failed and was rolled back: ${reason}`, { cause: e });
  }
  return pending.map((f) => f.name);
}

export interface FunctionDrift {
  /** Files whose function the database lacks. */
  missing: string[];
  /** Functions of the database that no file defines (signatures). */
  withoutFile: string[];
  /** Files whose function the database defines otherwise than the file does. */
  differing: string[];
}

/**
 * How the database's functions differ from the files: each file is applied again in a
 * transaction that is rolled back, and pg_get_functiondef compared before and after, so a body
 * edited by hand shows even where the recorded checksum still matches.
 */
export async function functionDrift(client: pg.Client, files: FunctionFile[]): Promise<FunctionDrift> {
  const catalog = await readCatalog(client);
  const names = new Set(files.map((f) => f.name));
  const drift: FunctionDrift = {
    missing: files.filter((f) => !catalog.some((r) => r.name === f.name)).map((f) => f.name),
    withoutFile: catalog.filter((r) => !names.has(r.name)).map((r) => r.signature),
    differing: [],
  };
  await client.query("BEGIN");
  try {
    for (const file of files) {
      if (drift.missing.includes(file.name)) continue;
      const before = await definitions(client, file.name);
      await client.query(file.sql);
      const after = await definitions(client, file.name);
      const same = before.size === after.size && [...before].every(([oid, def]) => after.get(oid) === def);
      if (!same) drift.differing.push(file.name);
    }
  } finally {
    await client.query("ROLLBACK");
  }
  return drift;
}
