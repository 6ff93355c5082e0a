import "server-only";
import { closePool, getPool, replicaStats } from "../db";

// The database as a whole: what the health check reads, and closing this process's pool.

export async function readServerVersion(): Promise<string | null> {
  const { rows } = await getPool().query<{ version: string }>("select current_setting('server_version') as version");
  return rows[0]?.version ?? null;
}

/** Closes this process's pool (a CLI run ends, or hands the database to the server it starts). */
export function closeDatabase(): Promise<void> {
  return closePool();
}

/** This process's pool: connections open, idle, and queries waiting for one (for the metrics endpoint). */
export function poolStats(): { total: number; idle: number; waiting: number } {
  const pool = getPool();
  return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
}

/** The read replicas (DATABASE_REPLICA_URL) as this process sees them, for the metrics endpoint; null without replicas. */
export function replicaReadStats(): ReturnType<typeof replicaStats> {
  return replicaStats();
}
