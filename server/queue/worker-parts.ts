import "server-only";
import type { Runner } from "graphile-worker";
import type pg from "pg";
import { logger } from "../logger";

/** What one of this instance's graphile-worker runners holds while it runs: the runner, its pool, its sweeper. */
export type WorkerParts = { runner: Runner | null; pool: pg.Pool | null; sweeper: NodeJS.Timeout | null };

export const idleWorker = (): WorkerParts => ({ runner: null, pool: null, sweeper: null });

/** Stops a runner (a job under way finishes) and lets its pool and sweeper go; `what` names it in the log. */
export async function stopWorker(parts: WorkerParts, what: string): Promise<void> {
  const { runner, pool, sweeper } = parts;
  Object.assign(parts, idleWorker());
  if (sweeper) clearInterval(sweeper);
  await runner?.stop().catch((err: unknown) => logger.warn({ err }, `stopping the ${what} failed`));
  await pool?.end().catch(() => undefined);
}
