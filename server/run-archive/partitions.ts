import "server-only";
import { logger } from "../logger";
import { dropPartitionIfExpired, ensureMonthlyPartitions, listPartitionsBefore } from "./repository/partitions";

// The event log's monthly partitions (docs/event-log-lifecycle.md "Partitions"): made ahead of
// the runs that will fill them, and dropped whole by retention once every run in one is past it.

/** Months made ahead of the current one: two ticks' failures are far from an insert missing its partition. */
export const PARTITIONS_AHEAD = 2;

/**
 * Makes the current and next months' partitions that are missing; returns how many it made. A
 * failure (a lock not had in time) is logged, and the next tick tries again: the default
 * partition takes the rows meanwhile, and they move when their month's partition is made.
 */
export async function keepPartitionsAhead(): Promise<number> {
  try {
    const made = await ensureMonthlyPartitions({ ahead: PARTITIONS_AHEAD });
    if (made > 0) logger.info({ made }, "event log partitions made ahead");
    return made;
  } catch (err) {
    logger.warn({ err }, "making the event log's next partitions failed; the next tick tries again");
    return 0;
  }
}

/**
 * Drops every monthly partition whose runs all started and finished before `before`, oldest
 * first, marking their logs expired; returns how many runs' logs went. A partition that stays
 * (a run of its month not finished, an archived run's object not deleted yet, its lock not had
 * in time) is left for a later tick.
 */
export async function dropExpiredPartitions({ before }: { before: Date }): Promise<number> {
  let expired = 0;
  for (const name of await listPartitionsBefore({ before })) {
    try {
      const marked = await dropPartitionIfExpired({ name, before });
      if (marked !== null) logger.info({ partition: name, expiredRuns: marked }, "event log partition dropped by retention");
      expired += marked ?? 0;
    } catch (err) {
      logger.warn({ err, partition: name }, "dropping an event log partition failed; the next tick tries again");
    }
  }
  return expired;
}
