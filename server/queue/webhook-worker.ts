import "server-only";
import { run, runOnce, type Logger, type TaskList } from "graphile-worker";
import { env } from "../env";
import { logger } from "../logger";
import { idleWorker, stopWorker, type WorkerParts } from "./worker-parts";
import { openQueuePool } from "../runs/repository/run-queue";
import { deliverDueWebhooks, deliverWebhook, WEBHOOK_DELIVER_TASK } from "../webhooks/service";

// Webhook deliveries' runner: graphile-worker takes only dispatch_webhook_deliver jobs here, with
// slots of its own (WEBHOOK_CONCURRENCY), since an attempt may wait WEBHOOK_TIMEOUT_MS for a slow
// receiver while a queued run's start must not wait behind it. Beside it, a sweep takes the
// deliveries due with nobody attempting them: an instance died mid-attempt (its lease expired),
// or the job that should have woken a deliverer was lost with it.

const SWEEP_MS = 5_000;
/** How long a delivery is due before the sweep takes it: its job normally comes first. */
const SWEEP_GRACE_MS = 5_000;

/** The one task this runner takes: a delivery's attempt, added by the statement that ended the run or decided the approval, and by a failed attempt for the next. */
function taskList(attempted: () => void): TaskList {
  return {
    [WEBHOOK_DELIVER_TASK]: async (payload) => {
      const id = (payload as { id?: unknown } | null)?.id;
      if (typeof id === "string" && (await deliverWebhook(id))) attempted();
    },
  };
}

const parts: WorkerParts = idleWorker();

/** Starts this instance's webhook deliverer and sweep; a no-op with WEBHOOK_CONCURRENCY=0 (the other instances send). */
export async function startWebhookWorker(queueLogger: Logger): Promise<void> {
  if (parts.runner || env.WEBHOOK_CONCURRENCY === 0) return;
  parts.pool = openQueuePool(env.WEBHOOK_CONCURRENCY + 2);
  parts.runner = await run({
    pgPool: parts.pool,
    concurrency: env.WEBHOOK_CONCURRENCY,
    pollInterval: env.QUEUE_POLL_INTERVAL_MS,
    noHandleSignals: true,
    logger: queueLogger,
    taskList: taskList(() => {}),
  });
  // One sweep at a time: slow receivers must not pile sweeps (and their requests) up.
  let sweeping = false;
  parts.sweeper = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    void deliverDueWebhooks({ limit: 50, graceMs: SWEEP_GRACE_MS })
      .catch((err: unknown) => logger.warn({ err }, "could not sweep due webhook deliveries"))
      .finally(() => (sweeping = false));
  }, SWEEP_MS);
  parts.sweeper.unref();
}

/** Stops taking deliveries (SIGTERM); an attempt under way finishes. */
export async function stopWebhookWorker(): Promise<void> {
  await stopWorker(parts, "webhook worker");
}

/**
 * Attempts every delivery whose job is due, then those due with no job, and returns: for a host
 * with no long-lived worker (Vercel), called by the deliver-webhooks duty. Answers how many it attempted.
 */
export async function deliverWebhooksOnce(queueLogger: Logger): Promise<number> {
  const once = openQueuePool(2);
  let attempted = 0;
  try {
    await runOnce(
      { pgPool: once, noHandleSignals: true, logger: queueLogger, preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } } },
      taskList(() => attempted++),
    );
  } finally {
    await once.end().catch(() => undefined);
  }
  return attempted + (await deliverDueWebhooks({ limit: 50, graceMs: 0 }));
}
