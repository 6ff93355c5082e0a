import "server-only";
import { getPool, withTransaction } from "../../db";

// The event log's partitions (run_event_batches, partitioned by range on run_created_at, one
// partition a month named run_event_batches_YYYY_MM, plus run_event_batches_default):
// docs/event-log-lifecycle.md "Partitions". The DDL itself is in the database functions
// dispatch_event_log_partition and dispatch_event_log_drop_partition (prisma/sql/functions).

/**
 * How long partition DDL waits for its lock before giving up until the next tick. Detaching a
 * partition needs the log's parent table alone: while it waits, every event write queues behind
 * it, so the wait is short and a busy moment is simply skipped.
 */
const LOCK_TIMEOUT = "1s";

/** Makes the partitions of the current month and the `ahead` months after it that are missing; returns how many it made. */
export async function ensureMonthlyPartitions({ ahead }: { ahead: number }): Promise<number> {
  const { rows } = await getPool().query<{ month: string }>(
    `select to_char(m, 'YYYY-MM-DD') as month
     from generate_series(date_trunc('month', localtimestamp), date_trunc('month', localtimestamp) + make_interval(months => $1::int), interval '1 month') m
     where to_regclass(quote_ident('run_event_batches_' || to_char(m, 'YYYY_MM'))) is null`,
    [ahead],
  );
  let made = 0;
  // One transaction a month: each holds the default partition's lock for one attach only.
  for (const { month } of rows) {
    const created = await withTransaction(async (client) => {
      await client.query(`set local lock_timeout = '${LOCK_TIMEOUT}'`);
      const { rows: answer } = await client.query<{ created: boolean }>("select dispatch_event_log_partition($1::timestamp) as created", [month]);
      return answer[0]!.created;
    });
    if (created) made++;
  }
  return made;
}

/** Monthly partitions whose every run was created before `before`, oldest first. */
export async function listPartitionsBefore({ before }: { before: Date }): Promise<string[]> {
  const { rows } = await getPool().query<{ name: string }>(
    `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
     where i.inhparent = 'run_event_batches'::regclass and c.relname ~ '^run_event_batches_[0-9]{4}_[0-9]{2}$'
       and to_timestamp(right(c.relname, 7), 'YYYY_MM')::timestamp + interval '1 month' <= ($1::timestamptz)::timestamp
     order by c.relname`,
    [before],
  );
  return rows.map((r) => r.name);
}

/**
 * Drops the partition if every run in it finished before `before`, marking its runs' logs expired
 * in the same transaction; the number of runs marked, or null when it stays (see the function).
 */
export async function dropPartitionIfExpired({ name, before }: { name: string; before: Date }): Promise<number | null> {
  return withTransaction(async (client) => {
    await client.query(`set local lock_timeout = '${LOCK_TIMEOUT}'`);
    const { rows } = await client.query<{ marked: number | null }>(
      "select dispatch_event_log_drop_partition($1, ($2::timestamptz)::timestamp) as marked",
      [name, before],
    );
    return rows[0]!.marked;
  });
}
