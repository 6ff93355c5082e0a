import "server-only";
import { env } from "../env";
import { logger } from "../logger";

// A run handed back before its Vercel invocation's limit goes on in another invocation: the one
// handing it back asks its own deployment to take it over, by calling the cron route that recovers
// runs (GET /api/cron/recover-runs?run=<id>, with CRON_SECRET) on the deployment's own URL, so the
// same code goes on with it. The answer comes once the run is claimed; its execution then lives in
// that new invocation. Should the call fail, the run stays released (its row is the durable
// record), and the every-minute cron takes it over.

const CALL_TIMEOUT_MS = 15_000;

function continuationUrl(runId: string): URL | null {
  const origin = env.CONTINUE_RUNS_URL ?? (env.VERCEL_URL ? `https://${env.VERCEL_URL}` : null);
  if (!origin) return null;
  const url = new URL("/api/cron/recover-runs", origin);
  url.searchParams.set("run", runId);
  return url;
}

/** Asks this deployment to go on with a run this invocation handed back; resolves whatever the answer. */
export async function requestContinuation(runId: string): Promise<void> {
  const url = continuationUrl(runId);
  if (!url || !env.CRON_SECRET) {
    logger.warn({ runId }, "cannot ask for a run's continuation (CRON_SECRET or the deployment's URL is not set); the recover-runs cron goes on with it");
    return;
  }
  try {
    const res = await fetch(url, {
      headers: {
        authorization: `Bearer ${env.CRON_SECRET}`,
        // Deployment Protection answers 401 before the app without it.
        ...(env.VERCEL_AUTOMATION_BYPASS_SECRET ? { "x-vercel-protection-bypass": env.VERCEL_AUTOMATION_BYPASS_SECRET } : {}),
      },
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    await res.body?.cancel();
    if (!res.ok) logger.warn({ runId, status: res.status }, "the call continuing a run was refused; the recover-runs cron goes on with it");
  } catch (err) {
    logger.warn({ err, runId }, "could not call for a run's continuation; the recover-runs cron goes on with it");
  }
}
