import "server-only";
import { env } from "../env";
import { INSTANCE_ID } from "../lib/instance-id";
import { unsealSecret } from "../lib/seal";
import { logger } from "../logger";
import { PublicFetchError } from "../net/fetch-public";
import { postPublic } from "../net/post-public";
import { webhookHeaders } from "./signing";
import { claimDelivery, dueDeliveryIds, recordAbandoned, recordDelivered, recordFailed, type ClaimedDelivery } from "./repository";

// One attempt of one delivery: claim it (a lease, so one instance at a time), sign and POST it,
// and write the outcome with the next attempt's job. An instance that dies mid-attempt leaves a
// lease that expires; the sweep (every instance's timer, or the cron route on Vercel) takes the
// delivery again, so a receiver may see a webhook-id twice and deduplicates by it.

export const WEBHOOK_SECRET_PURPOSE = "webhook";
export const WEBHOOK_DELIVER_TASK = "dispatch_webhook_deliver";

/** How long an attempt holds its delivery: its answer's deadline and some slack for writing the outcome. */
const leaseMs = () => env.WEBHOOK_TIMEOUT_MS + 5_000;

/** The wait before attempt `attempts + 1`: base · 2^(attempts-1), capped. */
function retryDelayMs(attempts: number): number {
  return Math.min(env.WEBHOOK_RETRY_BASE_MS * 2 ** Math.max(0, Math.min(attempts - 1, 30)), env.WEBHOOK_RETRY_MAX_MS);
}

// Where the payload's links point: PUBLIC_URL, else the Vercel deployment's own host, else this machine.
const origin = () => (env.PUBLIC_URL ? new URL(env.PUBLIC_URL).origin : env.VERCEL_URL ? `https://${env.VERCEL_URL}` : `http://localhost:${env.PORT}`);

/** The payload as sent: its links (stored as paths) made absolute on this deployment's origin. */
function bodyOf(payload: unknown): string {
  return JSON.stringify(payload, (key, value: unknown) => ((key === "url" || key === "eventsUrl") && typeof value === "string" && value.startsWith("/") ? origin() + value : value));
}

async function attempt(claimed: ClaimedDelivery): Promise<{ ok: true; status: number } | { ok: false; status: number | null; error: string }> {
  try {
    const secrets = [unsealSecret(WEBHOOK_SECRET_PURPOSE, claimed.secretSealed)];
    if (claimed.previousSecretSealed) secrets.push(unsealSecret(WEBHOOK_SECRET_PURPOSE, claimed.previousSecretSealed));
    const body = bodyOf(claimed.payload);
    const { status } = await postPublic(claimed.url, {
      body,
      headers: webhookHeaders({ id: claimed.id, body, secrets }),
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      allowedHosts: env.RUNNER_ALLOWED_HOSTS,
      userAgent: "Dispatch-Webhooks/1",
    });
    return status >= 200 && status < 300 ? { ok: true, status } : { ok: false, status, error: `the endpoint answered HTTP ${status}` };
  } catch (err) {
    if (err instanceof PublicFetchError) return { ok: false, status: null, error: err.message };
    // Our fault, not the receiver's: logged, and counted as a failed attempt so the delivery still ends.
    logger.error({ err, deliveryId: claimed.id }, "a webhook delivery could not be sent");
    return { ok: false, status: null, error: "the delivery could not be sent (a server error; see the server log)" };
  }
}

/** Attempts delivery `id` if it is due and nobody else is; answers whether an attempt was made. */
export async function deliverWebhook(id: string): Promise<boolean> {
  const claimed = await claimDelivery({ id, leaseMs: leaseMs(), instance: INSTANCE_ID });
  if (!claimed) return false;
  if (claimed.endpointDisabled) {
    await recordAbandoned({ id, instance: INSTANCE_ID, error: "not sent: the endpoint is disabled" });
    return false;
  }
  const outcome = await attempt(claimed);
  if (outcome.ok) {
    await recordDelivered({ id, instance: INSTANCE_ID, status: outcome.status });
    return true;
  }
  const { disabled } = await recordFailed({
    id,
    instance: INSTANCE_ID,
    status: outcome.status,
    error: outcome.error,
    last: claimed.attempts >= env.WEBHOOK_MAX_ATTEMPTS,
    retryInMs: retryDelayMs(claimed.attempts),
    disableAfterFailures: env.WEBHOOK_DISABLE_AFTER_FAILURES,
    disableAfterSeconds: env.WEBHOOK_DISABLE_AFTER_SECONDS,
  });
  if (disabled) logger.warn({ deliveryId: id }, "a webhook endpoint kept failing and is disabled");
  return true;
}

/**
 * Attempts the deliveries due for `graceMs` or more that nobody attempts, `limit` at most, a few at
 * a time: what the sweep and Vercel's cron call. Answers how many were attempted.
 */
export async function deliverDueWebhooks({ limit, graceMs }: { limit: number; graceMs: number }): Promise<number> {
  const ids = await dueDeliveryIds({ limit, graceMs });
  let attempted = 0;
  for (let i = 0; i < ids.length; i += 4) {
    const done = await Promise.all(ids.slice(i, i + 4).map((id) => deliverWebhook(id)));
    attempted += done.filter(Boolean).length;
  }
  return attempted;
}
