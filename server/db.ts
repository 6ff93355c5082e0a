import "server-only";
import { attachDatabasePool } from "@vercel/functions";
import pg from "pg";
import { env, requireDatabaseUrl } from "./env";
import { createReplicaSet, type ReadAfter, type ReadDb, type ReplicaSet, type ReplicaStats } from "./db-replicas";
import { isDatabaseUnavailable } from "./kernel/errors";
import { logger } from "./logger";

// One pool per process, used only by repositories; kept on globalThis so dev hot reloads do
// not open new pools. The statements every run makes (API key, accept, event rows, finish) are
// named queries: each pooled connection parses and plans them once instead of on every call.
const globalForDb = globalThis as unknown as { dispatchPool?: pg.Pool; dispatchReplicas?: ReplicaSet | null };

// The client gives up a little after PostgreSQL would have cancelled the statement, so a
// healthy server's own cancellation (57014) is what callers normally see.
const QUERY_TIMEOUT_MARGIN_MS = 2_000;

// A long-lived server shares one pool among all its requests; on Vercel each function instance has
// its own, and scaling out multiplies them, so each stays small (a pooler in front, docs/vercel.md).
const POOL_MAX = env.DATABASE_POOL_MAX ?? (env.VERCEL ? 5 : 20);

export function getPool(): pg.Pool {
  if (!globalForDb.dispatchPool) {
    const pool = openPool(requireDatabaseUrl());
    // On Vercel: keeps a suspended instance alive until its idle connections are closed, rather
    // than leaving them open on the database side (a no-op elsewhere).
    if (env.VERCEL) attachDatabasePool(pool);
    globalForDb.dispatchPool = pool;
  }
  return globalForDb.dispatchPool;
}

function openPool(connectionString: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: POOL_MAX,
    // Outages answer 503 within bounds: waiting for (or opening) a connection, and each
    // statement. statement_timeout is PostgreSQL's own; query_timeout is the client's, for a
    // server that never answers at all (frozen, or cut off without a reset). pg-pool closes a
    // connection whose query failed rather than reuse it, so a timed-out one is not handed out again.
    connectionTimeoutMillis: env.DATABASE_CONNECT_TIMEOUT_MS,
    statement_timeout: env.DATABASE_STATEMENT_TIMEOUT_MS,
    query_timeout: env.DATABASE_STATEMENT_TIMEOUT_MS + QUERY_TIMEOUT_MARGIN_MS,
    idleTimeoutMillis: 30_000,
    // No JIT compilation: every statement here reads a few rows by index, but some (a history
    // page, whose day the planner cannot know in advance) are estimated near jit_above_cost,
    // and compiling one takes longer than running it. `options` in DATABASE_URL overrides this.
    // Transaction poolers (DATABASE_URL_UNPOOLED names the direct connection) may refuse
    // start-up parameters, so none is sent through them.
    ...(env.DATABASE_URL_UNPOOLED ? {} : { options: "-c jit=off" }),
  });
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on("error", (err: Error & { code?: string }) => logger.warn({ code: err.code, reason: err.message }, "idle database connection lost"));
  return pool;
}

function replicaSet(): ReplicaSet | null {
  if (globalForDb.dispatchReplicas === undefined) {
    const urls = env.DATABASE_REPLICA_URL;
    globalForDb.dispatchReplicas =
      urls.length === 0
        ? null
        : createReplicaSet({
            urls,
            maxLagMs: env.DATABASE_REPLICA_MAX_LAG_MS,
            waitMs: env.DATABASE_REPLICA_WAIT_MS,
            checkMs: env.DATABASE_REPLICA_CHECK_MS,
            primary: getPool,
            openPool: (url) => {
              const pool = openPool(url);
              if (env.VERCEL) attachDatabasePool(pool);
              return pool;
            },
          });
  }
  return globalForDb.dispatchReplicas;
}

/**
 * Where a read that tolerates replica lag goes: a read replica (DATABASE_REPLICA_URL) when one is
 * current and has replayed what `after` asks for, else the primary; a read that fails on a replica
 * is retried on the primary. Only reads: a write through it could land on a standby, which refuses it.
 */
export function readPool(opts: { after?: ReadAfter } = {}): ReadDb {
  return replicaSet()?.readDb(opts.after) ?? getPool();
}

/** The read replicas' state and the reads that fell back to the primary (for the metrics endpoint); null without replicas. */
export function replicaStats(): { replicas: ReplicaStats[]; primaryReads: number } | null {
  return replicaSet()?.stats() ?? null;
}

/**
 * Notes that `userId`'s write has committed: for a while, this instance's replica reads for that
 * user (`readPool({ after: { user } })`) wait for a replica that has it, or go to the primary.
 */
export function noteWrite(userId: string): void {
  replicaSet()?.noteWrite(userId);
}

/** Ends the pool if one was opened, once its connections are closed; the next getPool() opens a new one. */
export async function closePool(): Promise<void> {
  const pool = globalForDb.dispatchPool;
  const replicas = globalForDb.dispatchReplicas;
  globalForDb.dispatchPool = undefined;
  globalForDb.dispatchReplicas = undefined;
  await replicas?.close();
  if (pool) await endPool(pool);
}

/** Ends a pool and resolves once every connection of it is closed. */
export async function endPool(pool: pg.Pool): Promise<void> {
  // end() resolves when no client is checked out, while the idle ones are still closing: a
  // database stopped right after (`npm start`'s) would cut them and the pool would report it.
  let open = pool.totalCount;
  const closed = new Promise<void>((resolve) => {
    if (open === 0) resolve();
    pool.on("remove", () => --open === 0 && resolve());
  });
  await pool.end();
  await closed;
}

/** Runs `fn` in one transaction on a pooled connection; rolls back on any error. */
export async function withTransaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await getPool().connect();
  try {
    await client.query("begin");
    const result = await fn(client);
    await client.query("commit");
    client.release();
    return result;
  } catch (err) {
    // A connection that timed out or was cut may still owe an answer: closed, never reused
    // (a rollback there would only wait out another timeout).
    if (isDatabaseUnavailable(err)) {
      client.release(err as Error);
      throw err;
    }
    const rollbackFailed = await client.query("rollback").then(() => undefined, (e: Error) => e);
    client.release(rollbackFailed);
    throw err;
  }
}
