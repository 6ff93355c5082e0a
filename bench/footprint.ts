// What each run leaves in PostgreSQL: WAL bytes (what a replica and a backup receive), event-log
// rows and messages, over a measured stretch of runs. Inputs of the capacity model
// (docs/scaling.md): a cluster's WAL bandwidth and row rates divide by these.
import pg from "pg";
import { startStatementProfile } from "./pg-statements";

/** `logKbPerRun`: how much the event log's table (with its TOAST and indexes) grew per run. */
export type Footprint = { runs: number; walKbPerRun: number; logKbPerRun: number; batchRowsPerRun: number; messagesPerRun: number };

type Mark = { lsn: string; at: Date; log: string };

async function query<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows[0]!;
  } finally {
    await client.end();
  }
}

// The event log is partitioned (one table a month, plus a default one): its size is its partitions'.
const LOG_SIZE = "(select sum(pg_total_relation_size(relid)) from pg_partition_tree('run_event_batches'))";

/** Runs `fn`, and tells what the runs started meanwhile wrote. */
export async function measureFootprint<T>(url: string, fn: () => Promise<T>, label = "runs"): Promise<{ result: T; footprint: Footprint }> {
  const before = await query<Mark>(url, `select pg_current_wal_lsn()::text as lsn, clock_timestamp() as at, ${LOG_SIZE}::text as log`);
  const profile = await startStatementProfile(url, label);
  const result = await fn();
  const after = await query<{ wal: string; log: string; runs: string; batches: string; messages: string }>(
    url,
    `select pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::text as wal, ${LOG_SIZE}::text as log,
       (select count(*) from runs where created_at >= $2)::text as runs,
       (select count(*) from run_event_batches where created_at >= $2)::text as batches,
       (select count(*) from messages where created_at >= $2)::text as messages`,
    [before.lsn, before.at],
  );
  const runs = Number(after.runs);
  await profile?.end(runs);
  return { result, footprint: { runs, walKbPerRun: Number(after.wal) / 1024 / runs, logKbPerRun: (Number(after.log) - Number(before.log)) / 1024 / runs, batchRowsPerRun: Number(after.batches) / runs, messagesPerRun: Number(after.messages) / runs } };
}
