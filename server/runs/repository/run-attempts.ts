import "server-only";
import { getPool } from "../../db";
import type { RunAttemptModel } from "../../generated/prisma/models";

// The executions of each run (run_attempts): one row written when an execution starts, by the
// statement that makes the run running for it (dispatch_accept_run, dispatch_start_queued_run, a
// takeover's claim, markRunStarted), its end in the statement that closes the run, releases it or
// takes it over, so an attempt costs no statement of its own. Every write is fenced by
// runs.attempt, like the executor's other writes.

/** Why an execution of a run ended. */
export type AttemptEnd = "finished" | "handed_off" | "lease_expired" | "deadline" | "closed_elsewhere";

export type RunAttemptRow = Pick<RunAttemptModel, "attempt" | "instance" | "startedAt" | "endedAt"> & { endReason: AttemptEnd | null };

/** Ends this execution's row when nobody ended it yet (a takeover may have: lease_expired). */
export async function endRunAttempt({ id, attempt, reason }: { id: string; attempt: number; reason: AttemptEnd }): Promise<void> {
  await getPool().query(`update run_attempts set ended_at = now(), end_reason = $3 where run_id = $1 and attempt = $2 and ended_at is null`, [id, attempt, reason]);
}

/**
 * A CTE for a statement that closes or releases a run: ends the run's open attempt row with
 * `reasonParam`, when the CTE `source` (the run's row, as that statement changed it) is not empty.
 */
export function endOpenAttemptSql(source: string, reasonParam: string): string {
  return `attempt_ended as (update run_attempts a set ended_at = now(), end_reason = ${reasonParam}
     from ${source} where a.run_id = ${source}.id and a.ended_at is null)`;
}

/** The run's attempts, first first, for the console's run page. */
export async function listRunAttempts({ runId }: { runId: string }): Promise<RunAttemptRow[]> {
  const { rows } = await getPool().query<RunAttemptRow>(
    `select attempt, instance, started_at as "startedAt", ended_at as "endedAt", end_reason as "endReason"
     from run_attempts where run_id = $1 order by attempt`,
    [runId],
  );
  return rows;
}
