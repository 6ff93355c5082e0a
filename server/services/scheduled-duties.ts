import "server-only";
import { createHash, timingSafeEqual } from "node:crypto";
import { env } from "../env";
import { AppError } from "../errors";
import { sweepOldApiCalls } from "../runner-host/api/audit-retention";
import { recoverAbandonedRuns } from "../runs/recovery";
import { runQueuedRunsOnce } from "../queue/worker";

// The periodic duties a long-lived server runs on its own timers (server/start-up.ts). On Vercel
// a function runs timers only while it serves a request, so Vercel Cron calls them instead
// (vercel.json), with CRON_SECRET as a bearer token.

const DUTIES = {
  // Closes runs whose executor stopped reporting (an invocation stopped by its time limit).
  "recover-runs": async () => ({ closedRuns: await recoverAbandonedRuns() }),
  // Starts the runs whose turn came on a busy thread (the enqueue policy): no worker waits for them here.
  "start-queued-runs": async () => ({ startedRuns: await runQueuedRunsOnce() }),
  // Deletes host API audit rows past RUNNER_API_AUDIT_RETENTION_DAYS.
  "audit-retention": async () => ({ deletedAuditRows: await sweepOldApiCalls() }),
} as const satisfies Record<string, () => Promise<Record<string, number>>>;

export type DutyName = keyof typeof DUTIES;
export const DUTY_NAMES = Object.keys(DUTIES) as DutyName[];

const digest = (s: string) => createHash("sha256").update(s).digest();

/** Runs one duty for a caller that presented `Authorization: Bearer <CRON_SECRET>`. */
export async function runScheduledDuty({ duty, authorization }: { duty: string; authorization: string | null }): Promise<Record<string, number>> {
  if (!env.CRON_SECRET) {
    throw new AppError("FORBIDDEN", "Scheduled duties are disabled: set CRON_SECRET (Vercel Cron sends it as a bearer token)");
  }
  // Compared as digests: equal lengths, constant time, whatever the caller sent.
  if (!authorization || !timingSafeEqual(digest(authorization), digest(`Bearer ${env.CRON_SECRET}`))) {
    throw new AppError("UNAUTHORIZED", "Send Authorization: Bearer <CRON_SECRET>");
  }
  if (!Object.hasOwn(DUTIES, duty)) {
    throw new AppError("NOT_FOUND", `No scheduled duty ${duty}; the duties are ${DUTY_NAMES.join(", ")}`);
  }
  return DUTIES[duty as DutyName]();
}
