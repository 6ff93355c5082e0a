import "server-only";
import { env } from "../../env";
import { logger } from "../../logger";
import { deleteApiCallsBefore } from "../repository/audit";

// Host API audit rows are kept RUNNER_API_AUDIT_RETENTION_DAYS. Old rows go in bounded batches,
// each its own short statement, so a large backlog never holds locks or a connection for long.

const BATCH = 1_000;
const SWEEP_EVERY_MS = 60 * 60 * 1_000;

/** Deletes every audit row older than the retention period; returns how many went. */
export async function sweepOldApiCalls(now = Date.now()): Promise<number> {
  const before = new Date(now - env.RUNNER_API_AUDIT_RETENTION_DAYS * 86_400_000);
  let deleted = 0;
  for (;;) {
    const n = await deleteApiCallsBefore({ before, limit: BATCH });
    deleted += n;
    if (n < BATCH) return deleted;
    // Let requests waiting for a connection in between batches.
    await new Promise((r) => setImmediate(r));
  }
}

let sweeper: NodeJS.Timeout | null = null;

/** At start-up and then hourly. */
export function startApiCallRetention(): void {
  if (sweeper) return;
  const sweep = () =>
    void sweepOldApiCalls().then(
      (n) => n > 0 && logger.info({ deleted: n, retentionDays: env.RUNNER_API_AUDIT_RETENTION_DAYS }, "deleted expired runner API audit rows"),
      (err: unknown) => logger.warn({ err }, "runner API audit retention sweep failed"),
    );
  sweep();
  sweeper = setInterval(sweep, SWEEP_EVERY_MS);
  sweeper.unref();
}
