import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/root";

// Shared display helpers for the console. Times show in the browser's own time zone, on the
// 24-hour clock the chat and the cards use.

export type AdminOutputs = inferRouterOutputs<AppRouter>;

export function formatDateTime(at: Date | null | undefined): string {
  if (!at) return "—";
  return at.toLocaleString(undefined, { year: "numeric", month: "short", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" });
}

export function formatTime(at: Date): string {
  return `${at.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" })}.${String(at.getMilliseconds()).padStart(3, "0")}`;
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1_000)} s`;
}

export function formatPercent(rate: number | null | undefined): string {
  if (rate === null || rate === undefined) return "—";
  return `${(rate * 100).toFixed(rate > 0 && rate < 0.1 ? 1 : 0)}%`;
}

export function statusPillClass(status: string): string {
  switch (status) {
    case "completed":
    case "success":
      return "pill pill-ok";
    case "failed":
    case "failure":
      return "pill pill-bad";
    default:
      return "pill";
  }
}

/** Pretty JSON for display; payloads arrive as exact stored text and stay readable if odd. */
export function prettyJson(value: unknown): string {
  if (typeof value === "string") {
    try {
      return JSON.stringify(JSON.parse(value) as unknown, null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2) ?? String(value);
}
