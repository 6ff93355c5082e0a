import "server-only";
import { getPool } from "../db";
import { logger } from "../logger";
import type { ResultRecord } from "./result-stream";

/** Persists a run's result log in one statement when the stream ends. */
export async function saveRunnerResults({ runId, records }: { runId: string; records: ResultRecord[] }): Promise<void> {
  if (records.length === 0) return;
  try {
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
  } catch (err) {
    logger.error({ err, runId }, "could not save the runner's result log");
  }
}

export type RunnerResultRow = ResultRecord & { createdAt: Date };

export async function listRunnerResults({ runId }: { runId: string }): Promise<RunnerResultRow[]> {
  const { rows } = await getPool().query<RunnerResultRow>(
    `select idx, sequence, type, disposition, detail, data, created_at as "createdAt" from runner_results where run_id = $1 order by idx`,
    [runId],
  );
  return rows;
}
