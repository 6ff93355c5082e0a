import "server-only";
import { env } from "../env";
import { logger } from "../logger";
import { getStorage } from "../storage/driver";
import { encodeArchive, sha256Of } from "./archive-format";
import { dropExpiredPartitions, keepPartitionsAhead } from "./partitions";
import {
  listRunBatches,
  listRunsToArchive,
  listRunsToExpire,
  markRunEventsExpired,
  recordArchiveAndDeleteHotRows,
  type DueRun,
} from "./repository/run-logs";

// The event log's lifecycle (docs/event-log-lifecycle.md): finished runs' logs move from the hot
// rows to one gzip'd NDJSON object each in the attachment storage after RUN_ARCHIVE_AFTER_DAYS,
// and are deleted after RUN_EVENTS_RETENTION_DAYS, whole months at a time where they can be (the
// log is partitioned by month: ./partitions.ts). Both are duties (the cron route on Vercel, a
// timer on a long-lived server); a tick does bounded work and the next one goes on.

const DAY_MS = 86_400_000;
/** Runs one tick archives or expires at most. */
export const LIFECYCLE_BATCH = 100;
const TICK_EVERY_MS = 10 * 60 * 1_000;

/** When a call overrides the deployment's policy (tests, an operator's one-off sweep). */
type TickOptions = { now?: number; afterDays?: number; limit?: number };

// After this many runs failed in one tick the storage is likely down: the tick stops there.
const FAILURES_PER_TICK = 3;

/**
 * Archives up to `limit` finished runs' logs that are due; off while RUN_ARCHIVE_AFTER_DAYS is
 * unset. A run that fails is logged and left hot, for the next tick.
 */
export async function archiveRunsOnce({ now = Date.now(), afterDays = env.RUN_ARCHIVE_AFTER_DAYS, limit = LIFECYCLE_BATCH }: TickOptions = {}): Promise<{
  archived: number;
  failed: number;
}> {
  const result = { archived: 0, failed: 0 };
  if (afterDays === undefined) return result;
  const due = await listRunsToArchive({ before: new Date(now - afterDays * DAY_MS), limit });
  for (const run of due) {
    try {
      if (await archiveRun(run)) result.archived++;
    } catch (err) {
      result.failed++;
      logger.warn({ err, runId: run.runId }, "archiving a run's events failed; its events stay in the database");
      if (result.failed >= FAILURES_PER_TICK) break;
    }
  }
  return result;
}

/**
 * Uploads the run's log, reads it back to verify it, then records it and deletes the hot rows in
 * one statement. A failure anywhere before that statement leaves the hot rows as they were (an
 * object left behind is overwritten by the next attempt: its key is the run's).
 */
async function archiveRun({ runId, userId }: DueRun): Promise<boolean> {
  const batches = await listRunBatches({ runId });
  if (batches.length === 0) return false;
  const archive = encodeArchive(batches);
  const storage = getStorage();
  const ref = { bucket: storage.bucket, path: `run-events/${userId}/${runId}.ndjson.gz` };
  await storage.putObject({ ...ref, body: archive.body, contentType: "application/gzip" });
  const stored = await storage.getObject(ref);
  if (!stored || stored.data.byteLength !== archive.body.byteLength || sha256Of(stored.data) !== archive.sha256) {
    throw new Error(`the storage did not return the archive of run ${runId} as written`);
  }
  const moved = await recordArchiveAndDeleteHotRows({
    runId,
    ...ref,
    bytes: archive.body.byteLength,
    sha256: archive.sha256,
    eventCount: archive.eventCount,
    lastSeq: archive.lastSeq,
    batchCount: batches.length,
  });
  if (!moved) logger.info({ runId }, "a run's log changed or was archived elsewhere while it was being archived; left as it is");
  return moved;
}

/**
 * Deletes finished runs' logs past retention; returns how many. Off while
 * RUN_EVENTS_RETENTION_DAYS is unset. First every month whose runs are all past it goes whole (a
 * partition dropped, no row deleted one by one), then up to `limit` runs one by one: archived
 * runs' objects, and runs whose month is not wholly past retention yet.
 */
export async function expireRunEventsOnce({ now = Date.now(), afterDays = env.RUN_EVENTS_RETENTION_DAYS, limit = LIFECYCLE_BATCH }: TickOptions = {}): Promise<number> {
  if (afterDays === undefined) return 0;
  const before = new Date(now - afterDays * DAY_MS);
  const dropped = await dropExpiredPartitions({ before });
  const due = await listRunsToExpire({ before, limit });
  for (const run of due) {
    // The bytes go first: a failure here leaves the run due, and the next tick deletes again.
    if (run.bucket && run.path) await getStorage().deleteObject({ bucket: run.bucket, path: run.path });
    await markRunEventsExpired({ runId: run.runId });
  }
  return dropped + due.length;
}

/**
 * The archive duty's tick: the event log's next partitions first (whatever the policies: the log
 * is partitioned on every deployment), then the archive.
 */
export async function archiveRunsTick(options: TickOptions = {}): Promise<{ archived: number; failed: number }> {
  await keepPartitionsAhead();
  return archiveRunsOnce(options);
}

let timer: NodeJS.Timeout | null = null;

/**
 * On a long-lived server: one tick at start-up, then every ten minutes. The event log's partitions
 * are kept ahead on every tick; archive and retention act while their policy is set.
 */
export function startEventLogLifecycle(): void {
  if (timer) return;
  const tick = () =>
    void (async () => {
      const { archived, failed } = await archiveRunsTick();
      const expired = await expireRunEventsOnce();
      if (archived + failed + expired > 0) logger.info({ archived, failed, expired }, "event log lifecycle tick");
    })().catch((err: unknown) => logger.warn({ err }, "event log lifecycle tick failed; the next one goes on"));
  tick();
  timer = setInterval(tick, TICK_EVERY_MS);
  timer.unref();
}
