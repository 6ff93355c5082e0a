import "server-only";
import { readPool } from "../../db";

// Aggregates for the console dashboard over the last `hours` hours. Every query starts
// from runs.created_at (indexed), so the cost follows the window, not the table size.
// Timestamps are written as the session's local time, hence localtimestamp, not now().

export type HourBucket = { hour: Date; runs: number; failed: number };

export type RunWindowStats = {
  total: number;
  completed: number;
  failed: number;
  cancelled: number;
  active: number;
  p50Ms: number | null;
  p95Ms: number | null;
};

export type ToolWindowStats = { total: number; failed: number; partial: number };

export async function countRunsPerHour({ hours }: { hours: number }): Promise<HourBucket[]> {
  const { rows } = await readPool().query<HourBucket>(
    `with b as (
       select generate_series(date_trunc('hour', localtimestamp) - ($1::int - 1) * interval '1 hour',
                              date_trunc('hour', localtimestamp), interval '1 hour') as hour
     ), r as (
       select date_trunc('hour', created_at) as hour, count(*)::int as runs, count(*) filter (where status = 'failed')::int as failed
       from runs where created_at >= date_trunc('hour', localtimestamp) - ($1::int - 1) * interval '1 hour' group by 1
     )
     select b.hour, coalesce(r.runs, 0) as runs, coalesce(r.failed, 0) as failed from b left join r using (hour) order by b.hour`,
    [hours],
  );
  return rows;
}

export async function findRunWindowStats({ hours }: { hours: number }): Promise<RunWindowStats> {
  const { rows } = await readPool().query<RunWindowStats>(
    `select count(*)::int as total,
       count(*) filter (where status = 'completed')::int as completed,
       count(*) filter (where status = 'failed')::int as failed,
       count(*) filter (where status = 'cancelled')::int as cancelled,
       count(*) filter (where status in ('queued', 'running'))::int as active,
       percentile_cont(0.5) within group (order by extract(epoch from (finished_at - started_at)) * 1000)
         filter (where finished_at is not null and started_at is not null) as "p50Ms",
       percentile_cont(0.95) within group (order by extract(epoch from (finished_at - started_at)) * 1000)
         filter (where finished_at is not null and started_at is not null) as "p95Ms"
     from runs where created_at >= localtimestamp - $1::int * interval '1 hour'`,
    [hours],
  );
  return rows[0]!;
}

/**
 * Tool results stored by runs in the window, by outcome. `partial` (say, an event created with
 * an attendee who could not be invited) did what was asked and is not counted as a failure.
 */
export async function findToolWindowStats({ hours }: { hours: number }): Promise<ToolWindowStats> {
  const { rows } = await readPool().query<ToolWindowStats>(
    `select count(*)::int as total,
       count(*) filter (where m.metadata->'tool_agent_output'->>'status' not in ('success', 'partial'))::int as failed,
       count(*) filter (where m.metadata->'tool_agent_output'->>'status' = 'partial')::int as partial
     from runs r join messages m on m.thread_id = r.thread_id and m.run_id = r.id
     where r.created_at >= localtimestamp - $1::int * interval '1 hour'
       and m.role = 'tool' and m.metadata ? 'tool_agent_output'`,
    [hours],
  );
  return rows[0]!;
}
