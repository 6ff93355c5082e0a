import "server-only";
import pg from "pg";
import { env, requireDatabaseUrl } from "./env";
import { logger } from "./logger";

// One pool per process, used only by repositories; kept on globalThis so dev hot reloads do
// not open new pools. The statements every run makes (API key, accept, event rows, finish) are
// named queries: each pooled connection parses and plans them once instead of on every call.
const globalForDb = globalThis as unknown as { dispatchPool?: pg.Pool };

export function getPool(): pg.Pool {
  if (!globalForDb.dispatchPool) {
    const pool = new pg.Pool({
      connectionString: requireDatabaseUrl(),
      max: env.DATABASE_POOL_MAX,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
      // No JIT compilation: every statement here reads a few rows by index, but some (a history
      // page, whose day the planner cannot know in advance) are estimated near jit_above_cost,
      // and compiling one takes longer than running it. `options` in DATABASE_URL overrides this.
      options: "-c jit=off",
    });
    // An idle client losing its connection (database restart) must not crash the process.
    pool.on("error", (err: Error & { code?: string }) => logger.warn({ code: err.code, reason: err.message }, "idle database connection lost"));
    globalForDb.dispatchPool = pool;
  }
  return globalForDb.dispatchPool;
}

/** Ends the pool if one was opened; the next getPool() opens a new one. */
export async function closePool(): Promise<void> {
  const pool = globalForDb.dispatchPool;
  globalForDb.dispatchPool = undefined;
  await pool?.end();
}

/** Runs `fn` in one transaction on a pooled connection; rolls back on any error. */
export async function withTransaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await getPool().connect();
  try {
    await client.query("begin");
    const result = await fn(client);
    await client.query("commit");
    return result;
  } catch (err) {
    await client.query("rollback").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
