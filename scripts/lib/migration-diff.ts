import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import {
  bindMigrationAwareSqlAdapterFactory,
  ColumnTypeEnum,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";
import { DEFAULT_MIGRATIONS_DIR, migrate } from "./migrator";
import { startSchemaEngine } from "./schema-engine-wasm";
import { startScratchPostgres } from "./scratch-postgres";

// Migration SQL is computed by Prisma's own schema engine (the WebAssembly build that ships
// with the prisma package), comparing a real database against a schema file. "The schema the
// migrations produce" is a scratch database the migrations were applied to, so authoring and
// the drift test both see exactly what `npm run db:migrate` builds.

export const DEFAULT_SCHEMA_PATH = fileURLToPath(new URL("../../prisma/schema.prisma", import.meta.url));

/** PostgreSQL's internal one-byte `"char"` type, used by the catalog columns the engine reads. */
const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

/**
 * A driver adapter the schema engine can describe a database through. @prisma/adapter-pg rejects
 * the catalog's `"char"` columns (pg_constraint.contype...) as unsupported, while the engine
 * expects them as Character: so the pool reports them as text and the adapter relabels them.
 */
function describableAdapter(connectionString: string): { factory: SqlMigrationAwareDriverAdapterFactory; close: () => Promise<void> } {
  const pool = new pg.Pool({ connectionString, max: 2 });
  const charColumns = new WeakMap<object, number[]>();
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<pg.QueryResult>;
  Object.assign(pool, {
    query: async (...args: unknown[]) => {
      const result = await query(...args);
      const indexes: number[] = [];
      result.fields?.forEach((field, i) => {
        if (field.dataTypeID !== PG_CHAR_OID) return;
        field.dataTypeID = PG_TEXT_OID;
        indexes.push(i);
      });
      if (indexes.length > 0) charColumns.set(result.rows, indexes);
      return result;
    },
  });
  const relabel = (adapter: SqlDriverAdapter): SqlDriverAdapter => {
    const queryRaw = adapter.queryRaw.bind(adapter);
    adapter.queryRaw = async (q) => {
      const result = await queryRaw(q);
      for (const i of charColumns.get(result.rows) ?? []) result.columnTypes[i] = ColumnTypeEnum.Character;
      return result;
    };
    return adapter;
  };
  const inner = new PrismaPg(pool);
  const factory: SqlMigrationAwareDriverAdapterFactory = {
    provider: inner.provider,
    adapterName: inner.adapterName,
    connect: async () => relabel(await inner.connect()),
    connectToShadowDb: () => Promise.reject(new Error("this engine is only used for diffs against a database we prepare ourselves")),
  };
  return { factory, close: () => pool.end() };
}

const isEmptyScript = (sql: string) =>
  sql
    .split("\n")
    .map((line) => line.trim())
    .every((line) => line === "" || line.startsWith("--"));

/**
 * The SQL that takes the database at `connectionString` to the schema in `schemaPath`,
 * or "" when they already match. The `_prisma_migrations` table is not part of the comparison.
 */
export async function diffDatabaseToSchema(opts: { connectionString: string; schemaPath?: string }): Promise<string> {
  const schemaPath = opts.schemaPath ?? DEFAULT_SCHEMA_PATH;
  const files = [{ path: schemaPath, content: await readFile(schemaPath, "utf8") }];
  const { factory, close } = describableAdapter(opts.connectionString);
  try {
    const engine = await startSchemaEngine(bindMigrationAwareSqlAdapterFactory(factory));
    try {
      const result = await engine.diff({
        from: { tag: "schemaDatasource", files, configDir: dirname(schemaPath) },
        to: { tag: "schemaDatamodel", files },
        script: true,
        exitCode: null,
        filters: { externalTables: [], externalEnums: [] },
      });
      const sql = result.stdout ?? "";
      return isEmptyScript(sql) ? "" : sql;
    } finally {
      engine.free();
    }
  } finally {
    await close();
  }
}

/**
 * The SQL that takes a database built by every migration in `migrationsDir` to `schemaPath`,
 * or "" when the migrations already produce that schema. The migrations are applied to
 * `shadowDatabaseUrl` (which must be an empty database) or to a scratch PostgreSQL started for the call.
 */
export async function diffMigrationsToSchema(
  opts: { schemaPath?: string; migrationsDir?: string; shadowDatabaseUrl?: string; log?: (line: string) => void } = {},
): Promise<string> {
  const run = async (connectionString: string) => {
    await migrate({ connectionString, migrationsDir: opts.migrationsDir ?? DEFAULT_MIGRATIONS_DIR, log: opts.log });
    return diffDatabaseToSchema({ connectionString, schemaPath: opts.schemaPath });
  };
  if (opts.shadowDatabaseUrl) return run(opts.shadowDatabaseUrl);
  opts.log?.("Starting a scratch PostgreSQL to replay the migrations on");
  const scratch = await startScratchPostgres();
  try {
    return await run(await scratch.createDatabase("shadow"));
  } finally {
    await scratch.stop();
  }
}
