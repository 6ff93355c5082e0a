import "server-only";
import { getPool } from "../../db";
import type { RunnerApiCallModel, RunnerResultModel } from "../../generated/prisma/models";

// What the host records about runners' work: every host API call (runner_api_calls) and every
// result a runner streamed for a run (runner_results).

export type ApiCallInsert = Omit<RunnerApiCallModel, "id" | "createdAt">;

/** One insert for the whole batch; cuts the free-text columns to their display lengths. */
export async function insertApiCalls(records: ApiCallInsert[]): Promise<void> {
  const cut = (s: string | null, n: number) => (s === null ? null : s.slice(0, n));
  await getPool().query(
    `insert into runner_api_calls (run_id, run_ref, runner_id, action, resource, scope, result, latency_ms)
     select * from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[])`,
    [
      records.map((r) => r.runId),
      records.map((r) => cut(r.runRef, 200)),
      records.map((r) => r.runnerId),
      records.map((r) => r.action),
      records.map((r) => cut(r.resource, 300)),
      records.map((r) => cut(r.scope, 200)),
      records.map((r) => r.result),
      records.map((r) => Math.max(0, Math.round(r.latencyMs))),
    ],
  );
}

/** Deletes up to `limit` of the oldest calls recorded before `before`; returns how many went. */
export async function deleteApiCallsBefore({ before, limit }: { before: Date; limit: number }): Promise<number> {
  const { rowCount } = await getPool().query({
    name: "dispatch-runner-api-calls-expire",
    text: `delete from runner_api_calls where id in (select id from runner_api_calls where created_at < $1 order by created_at limit $2)`,
    values: [before, limit],
  });
  return rowCount ?? 0;
}

/** The id is a bigint, given as text. */
export type ApiCallRow = Omit<RunnerApiCallModel, "id" | "runId"> & { id: string };

/** A run's host API calls, oldest first (at most `limit`), for the admin run page. */
export async function listRunApiCalls({ runId, limit = 500 }: { runId: string; limit?: number }): Promise<{ calls: ApiCallRow[]; truncated: boolean }> {
  const { rows } = await getPool().query<ApiCallRow>(
    `select id::text as id, run_ref as "runRef", runner_id as "runnerId", action, resource, scope, result, latency_ms as "latencyMs", created_at as "createdAt"
     from runner_api_calls where run_id = $1::uuid order by id limit $2`,
    [runId, limit + 1],
  );
  return { calls: rows.slice(0, limit), truncated: rows.length > limit };
}

/** A result's data is kept as JSON (cut to a preview for large ones). */
export type RunnerResultRow = Omit<RunnerResultModel, "runId" | "data"> & { data: unknown };

/** Stores a run's result log in one statement; rows already stored are kept. */
export async function insertRunnerResults({ runId, records }: { runId: string; records: Omit<RunnerResultRow, "createdAt">[] }): Promise<void> {
  await getPool().query(
    `insert into runner_results (run_id, idx, sequence, type, disposition, detail, data)
     select $1, * from unnest($2::int[], $3::int[], $4::text[], $5::text[], $6::text[], $7::json[])
     on conflict (run_id, idx) do nothing`,
    [
      runId,
      records.map((r) => r.idx),
      records.map((r) => r.sequence),
      records.map((r) => r.type),
      records.map((r) => r.disposition),
      records.map((r) => r.detail),
      records.map((r) => JSON.stringify(r.data ?? null)),
    ],
  );
}

export async function listRunnerResults({ runId }: { runId: string }): Promise<RunnerResultRow[]> {
  const { rows } = await getPool().query<RunnerResultRow>(
    `select idx, sequence, type, disposition, detail, data, created_at as "createdAt" from runner_results where run_id = $1 order by idx`,
    [runId],
  );
  return rows;
}
