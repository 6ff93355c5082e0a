import "server-only";
import { getPool } from "../../db";
import type { HotBatch } from "../archive-format";
import type { ArchiveManifest } from "../schemas";

// The event log's lifecycle in SQL: which finished runs' logs are due to move to storage or to
// expire, their hot rows (run_event_batches), and the archive table (run_event_archives) that
// says where each log went. Archiving writes the marker and deletes the hot rows in one statement.

// Runs are picked oldest first by runs(created_at): a run's deadline bounds how long after its
// start it finishes, so a finished_at before the cut-off is checked on what that index finds.
const FINISHED = `r.status in ('completed', 'failed', 'cancelled') and r.finished_at < $1`;

export type DueRun = { runId: string; userId: string };

/** Finished runs started before `before` whose log is still hot and not archived, oldest first. */
export async function listRunsToArchive({ before, limit }: { before: Date; limit: number }): Promise<DueRun[]> {
  const { rows } = await getPool().query<DueRun>(
    `select r.id as "runId", r.user_id as "userId" from runs r
     where r.created_at < $1 and ${FINISHED}
       and not exists (select 1 from run_event_archives a where a.run_id = r.id)
       and exists (select 1 from run_event_batches b where b.run_id = r.id)
     order by r.created_at limit $2`,
    [before, limit],
  );
  return rows;
}

/** Every hot batch of the run, in order. */
export async function listRunBatches({ runId }: { runId: string }): Promise<HotBatch[]> {
  const { rows } = await getPool().query<HotBatch>(
    `select first_seq as "firstSeq", last_seq as "lastSeq", types, events, created_at as "createdAt"
     from run_event_batches where run_id = $1 order by first_seq`,
    [runId],
  );
  return rows;
}

export type ArchiveRecord = { runId: string; bucket: string; path: string; bytes: number; sha256: string; eventCount: number; lastSeq: number; batchCount: number };

/**
 * Records where the run's log went and deletes its hot rows, in one statement: only while the
 * hot rows are still the `batchCount` batches up to `lastSeq` that were archived (a finished run
 * takes no more events, this is the proof) and no other instance recorded it first. True when
 * this call moved the log.
 */
export async function recordArchiveAndDeleteHotRows(a: ArchiveRecord): Promise<boolean> {
  const { rows } = await getPool().query<{ moved: number }>(
    `with hot as (select count(*)::int as n, coalesce(max(last_seq), 0) as last from run_event_batches where run_id = $1),
     marked as (
       insert into run_event_archives (run_id, bucket, path, bytes, sha256, event_count, last_seq)
       select $1, $2, $3, $4, $5, $6, $7 from hot where hot.n = $8 and hot.last = $7
       on conflict (run_id) do nothing
       returning run_id
     ),
     deleted as (delete from run_event_batches b using marked m where b.run_id = m.run_id returning 1)
     select (select count(*) from marked)::int as moved, (select count(*) from deleted)::int as deleted`,
    [a.runId, a.bucket, a.path, a.bytes, a.sha256, a.eventCount, a.lastSeq, a.batchCount],
  );
  return rows[0]!.moved === 1;
}

/** Where the run's log went, when it left the hot rows; null while it is hot (or never had events). */
export async function findRunArchive({ runId }: { runId: string }): Promise<ArchiveManifest | null> {
  const { rows } = await getPool().query<ArchiveManifest>(
    `select bucket, path, bytes, sha256, event_count as "eventCount", last_seq as "lastSeq", expired_at as "expiredAt"
     from run_event_archives where run_id = $1`,
    [runId],
  );
  return rows[0] ?? null;
}

export type ExpiringRun = { runId: string; bucket: string | null; path: string | null };

/** Finished runs started before `before` whose log (hot or archived) has not expired yet, oldest first. */
export async function listRunsToExpire({ before, limit }: { before: Date; limit: number }): Promise<ExpiringRun[]> {
  const { rows } = await getPool().query<ExpiringRun>(
    `select r.id as "runId", a.bucket, a.path from runs r left join run_event_archives a on a.run_id = r.id
     where r.created_at < $1 and ${FINISHED} and a.expired_at is null
       and (a.run_id is not null or exists (select 1 from run_event_batches b where b.run_id = r.id))
     order by r.created_at limit $2`,
    [before, limit],
  );
  return rows;
}

/**
 * Marks the run's log expired and deletes its hot rows, in one statement: the archive row stays
 * (a replay then says the log expired, and when), or is written now for a log never archived.
 */
export async function markRunEventsExpired({ runId }: { runId: string }): Promise<void> {
  await getPool().query(
    `with hot as (select coalesce(sum(last_seq - first_seq + 1), 0)::int as n, coalesce(max(last_seq), 0) as last
                  from run_event_batches where run_id = $1),
     marked as (
       insert into run_event_archives (run_id, event_count, last_seq, expired_at)
       select $1, hot.n, hot.last, now() from hot
       on conflict (run_id) do update set expired_at = now() where run_event_archives.expired_at is null
       returning run_id
     )
     delete from run_event_batches where run_id = $1`,
    [runId],
  );
}
