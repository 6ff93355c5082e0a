import "server-only";
import pg from "pg";
import { endPool } from "../../db";
import { env, requireDatabaseUrl } from "../../env";
import { logger } from "../../logger";

/**
 * A pool of its own for project_cli calls (the tool gateway's): its statements are cut off after
 * `statementTimeoutMs`, and it never takes a connection the run hot path needs.
 */
export function openToolPool({ max, statementTimeoutMs }: { max: number; statementTimeoutMs: number }): pg.Pool {
  const pool = new pg.Pool({
    connectionString: requireDatabaseUrl(),
    // A function instance on Vercel runs few tool calls at once and each instance has its own pool.
    max: env.VERCEL ? Math.min(max, 2) : max,
    statement_timeout: statementTimeoutMs,
    application_name: "project-cli",
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    allowExitOnIdle: true,
  });
  pool.on("error", (err: Error & { code?: string }) => logger.warn({ code: err.code, reason: err.message }, "idle tool gateway connection lost"));
  return pool;
}

/** Closes a pool from openToolPool, every connection of it (the server is stopping, before its database does). */
export function closeToolPool(pool: pg.Pool): Promise<void> {
  return endPool(pool);
}
