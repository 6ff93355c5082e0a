import "server-only";
import { createHash, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { env } from "../../env";
import { AppError } from "../../kernel/errors";
import { sweepOldApiCalls } from "../../runner-host/api/audit-retention";
import { archiveRunsTick, expireRunEventsOnce } from "../../run-archive/service";
import { recoverAbandonedRuns, type KeepExecuting } from "../../runs/recovery";
import { deliverWebhooksOnce } from "../../queue/webhook-worker";
import { fireSchedulesOnce, queueLogger, runQueuedRunsOnce } from "../../queue/worker";

// The periodic duties a long-lived server runs on its own timers (server/start-up.ts). On Vercel
// a function runs timers only while it serves a request, so Vercel Cron calls them instead
// (vercel.json), with CRON_SECRET as a bearer token.

/** What a duty gets besides the call: its query parameters, and how to keep work alive after the answer. */
type DutyCall = { params: URLSearchParams; keepExecuting: KeepExecuting };

const runParam = z.uuid({ error: "run must be the id of a run (a UUID)" }).optional();

const DUTIES = {
  // Goes on with runs whose executor stopped reporting (an invocation stopped by its time limit, a
  // crash) or handed them back before its invocation's limit, in this invocation; with `run`, only
  // that one (the continuation a handing-back invocation asks for, server/runs/continuation.ts).
  "recover-runs": async ({ params, keepExecuting }: DutyCall) => {
    const run = runParam.safeParse(params.get("run") ?? undefined);
    if (!run.success) throw new AppError("BAD_REQUEST", run.error.issues[0]!.message, { field: "run" });
    return { recoveredRuns: await recoverAbandonedRuns({ runId: run.data, keepExecuting }) };
  },
  // Starts the runs whose turn came on a busy thread (the enqueue policy): no worker waits for them here.
  "start-queued-runs": async () => ({ startedRuns: await runQueuedRunsOnce() }),
  // Deletes host API audit rows past RUNNER_API_AUDIT_RETENTION_DAYS.
  "audit-retention": async () => ({ deletedAuditRows: await sweepOldApiCalls() }),
  // Makes the event log's next monthly partitions, then moves up to 100 finished runs' event logs
  // past RUN_ARCHIVE_AFTER_DAYS to the attachment storage (docs/event-log-lifecycle.md); the next
  // call goes on with the rest.
  "archive-runs": async () => {
    const { archived, failed } = await archiveRunsTick();
    return { archivedRuns: archived, failedRuns: failed };
  },
  // Deletes finished runs' event logs past RUN_EVENTS_RETENTION_DAYS (whole monthly partitions,
  // then up to 100 runs one by one); their threads stay whole.
  "expire-run-events": async () => ({ expiredRuns: await expireRunEventsOnce() }),
  // Attempts the webhook deliveries that are due (first attempts and retries at their back-off):
  // with no long-lived worker, this is what sends them, once a minute. A call that runs out of
  // time leaves the rest (their leases expire) to the next.
  "deliver-webhooks": async () => ({ attemptedDeliveries: await deliverWebhooksOnce(queueLogger) }),
  // Fires the schedules whose due time came (docs/schedules.md): with no long-lived worker, a
  // schedule fires within a minute of its time; its run executes in this invocation.
  "fire-schedules": async ({ keepExecuting }: DutyCall) => ({ startedScheduledRuns: await fireSchedulesOnce(keepExecuting) }),
} as const satisfies Record<string, (call: DutyCall) => Promise<Record<string, number>>>;

export type DutyName = keyof typeof DUTIES;
export const DUTY_NAMES = Object.keys(DUTIES) as DutyName[];

const digest = (s: string) => createHash("sha256").update(s).digest();

/** Runs one duty for a caller that presented `Authorization: Bearer <CRON_SECRET>`. */
export async function runScheduledDuty({
  duty,
  authorization,
  params = new URLSearchParams(),
  keepExecuting = () => {},
}: {
  duty: string;
  authorization: string | null;
  params?: URLSearchParams;
  keepExecuting?: KeepExecuting;
}): Promise<Record<string, number>> {
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
  return DUTIES[duty as DutyName]({ params, keepExecuting });
}
