import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/root";
import { formatDateTime as formatLocalDateTime, formatNumber } from "../i18n/format";
import { useI18n } from "../i18n/use-dictionary";

// Shared display helpers for the console. Times show in the user's time zone (the one chosen in
// settings, else the browser's: the same the chat uses), on the 24-hour clock, in their language.

export type AdminOutputs = inferRouterOutputs<AppRouter>;

/** Date and time formatters bound to the viewer's language and zone. */
export function useConsoleDates() {
  const { locale, timeZone } = useI18n();
  return {
    /** "Nov 27, 2026, 14:05:09"; "—" when absent. */
    dateTime: (at: Date | string | null | undefined) => formatLocalDateTime(at, locale, timeZone, { seconds: true }),
    /** "14:05:09.123", for timelines where milliseconds tell events apart. */
    time: (at: Date | string) => {
      const d = new Date(at);
      const clock = new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23", timeZone }).format(d);
      return `${clock}.${String(d.getMilliseconds()).padStart(3, "0")}`;
    },
  };
}

/** Counts in the viewer's language; "—" for one nobody reported. */
export function useConsoleCount(): (n: number | null | undefined) => string {
  const { locale } = useI18n();
  return (n) => (n === null || n === undefined ? "—" : formatNumber(n, locale));
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
