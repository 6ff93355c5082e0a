import "server-only";
import { env } from "../../env";
import { isDatabaseUnavailable } from "../../kernel/errors";
import { logger } from "../../logger";
import { readServerVersion } from "../repository";

const startedAt = Date.now();

export type Health = {
  status: "ok" | "degraded";
  database: { reachable: boolean; version: string | null; latencyMs: number | null; error?: string };
  uptimeSeconds: number;
};

class HealthTimeout extends Error {}

/** The database's version, or a HealthTimeout when it does not answer within HEALTH_TIMEOUT_MS (a frozen server never does). */
function readVersionWithin(ms: number): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HealthTimeout()), ms);
  });
  return Promise.race([readServerVersion(), timeout]).finally(() => clearTimeout(timer));
}

export async function checkHealth(): Promise<Health> {
  const t0 = performance.now();
  const uptimeSeconds = () => Math.round((Date.now() - startedAt) / 1000);
  try {
    const version = await readVersionWithin(env.HEALTH_TIMEOUT_MS);
    return { status: "ok", database: { reachable: true, version, latencyMs: Math.round(performance.now() - t0) }, uptimeSeconds: uptimeSeconds() };
  } catch (err) {
    const timedOut = err instanceof HealthTimeout;
    if (!timedOut && !isDatabaseUnavailable(err)) logger.error({ err }, "health check failed");
    const error = timedOut ? "no answer within the health check's timeout" : "not reachable";
    return { status: "degraded", database: { reachable: false, version: null, latencyMs: null, error }, uptimeSeconds: uptimeSeconds() };
  }
}
