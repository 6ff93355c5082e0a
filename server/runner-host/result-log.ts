import "server-only";
import { logger } from "../logger";
import { insertRunnerResults } from "./repository/audit";
import type { ResultRecord } from "./result-stream";

/** Persists a run's result log in one statement when the stream ends; a failure is logged, not thrown. */
export async function saveRunnerResults({ runId, records }: { runId: string; records: ResultRecord[] }): Promise<void> {
  if (records.length === 0) return;
  try {
    await insertRunnerResults({ runId, records });
  } catch (err) {
    logger.error({ err, runId }, "could not save the runner's result log");
  }
}
