import "server-only";
import { z } from "zod";
import { countRunsPerHour, findRunWindowStats, findToolWindowStats } from "../repository/dashboard";

const WINDOW_HOURS = { "24h": 24, "7d": 168 } as const;

export const dashboardInput = z.object({ window: z.enum(["24h", "7d"]).default("24h") });

function rate(part: number, whole: number): number | null {
  return whole === 0 ? null : part / whole;
}

function roundMs(ms: number | null): number | null {
  return ms === null ? null : Math.round(ms);
}

export async function getDashboard(raw: z.input<typeof dashboardInput>) {
  const { window } = dashboardInput.parse(raw);
  const hours = WINDOW_HOURS[window];
  const [perHour, runs, tools] = await Promise.all([
    countRunsPerHour({ hours }),
    findRunWindowStats({ hours }),
    findToolWindowStats({ hours }),
  ]);
  const finished = runs.completed + runs.failed + runs.cancelled;
  return {
    window,
    perHour,
    runs: { ...runs, p50Ms: roundMs(runs.p50Ms), p95Ms: roundMs(runs.p95Ms), errorRate: rate(runs.failed, finished) },
    tools: { ...tools, failureRate: rate(tools.failed, tools.total) },
  };
}
