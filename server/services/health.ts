import "server-only";
import { isDatabaseUnavailable } from "../errors";
import { logger } from "../logger";
import { readServerVersion } from "../repositories/database";

const startedAt = Date.now();

export type Health = {
  status: "ok" | "degraded";
  database: { reachable: boolean; version: string | null; latencyMs: number | null };
  uptimeSeconds: number;
};

export async function checkHealth(): Promise<Health> {
  const t0 = performance.now();
  try {
    const version = await readServerVersion();
    return {
      status: "ok",
      database: { reachable: true, version, latencyMs: Math.round(performance.now() - t0) },
      uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
    };
  } catch (err) {
    if (!isDatabaseUnavailable(err)) logger.error({ err }, "health check failed");
    return { status: "degraded", database: { reachable: false, version: null, latencyMs: null }, uptimeSeconds: Math.round((Date.now() - startedAt) / 1000) };
  }
}
