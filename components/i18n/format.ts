import type { Locale } from "./locales";

// One way to show dates and times across chat, cards and console: 24-hour clock times, the
// viewer's time zone, "Today"/"Yesterday" where a person would say so, and everything else
// through Intl for the viewer's language. Pure functions: the server and the browser render
// the same text when given the same zone.

type Words = { today: string; yesterday: string; tomorrow: string };

const TIME: Intl.DateTimeFormatOptions = { hour: "2-digit", minute: "2-digit", hourCycle: "h23" };

function toMs(at: Date | string | number): number {
  return at instanceof Date ? at.getTime() : typeof at === "string" ? Date.parse(at) : at;
}

/** The calendar day (YYYY-MM-DD) of an instant in `timeZone`. */
export function localDay(at: Date | string | number, timeZone: string): string {
  const ms = toMs(at);
  if (Number.isNaN(ms)) return "";
  // en-CA writes dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(ms);
}

function shiftDay(day: string, days: number): string {
  const d = new Date(`${day}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** "Today", "Yesterday", "Tomorrow" or the full date ("Friday, November 27, 2026"), for a local day. */
export function dayName(day: string, opts: { locale: Locale; timeZone: string; words: Words; now?: Date }): string {
  const today = localDay(opts.now ?? new Date(), opts.timeZone);
  if (day === today) return opts.words.today;
  if (day === shiftDay(today, -1)) return opts.words.yesterday;
  if (day === shiftDay(today, 1)) return opts.words.tomorrow;
  const sameYear = day.slice(0, 4) === today.slice(0, 4);
  return new Intl.DateTimeFormat(opts.locale, { weekday: "long", month: "long", day: "numeric", ...(sameYear ? {} : { year: "numeric" }), timeZone: "UTC" }).format(new Date(`${day}T12:00:00Z`));
}

/** "14:05" in the viewer's zone. */
export function formatTime(at: Date | string | number, locale: Locale, timeZone: string): string {
  const ms = toMs(at);
  return Number.isNaN(ms) ? "" : new Intl.DateTimeFormat(locale, { ...TIME, timeZone }).format(ms);
}

/** "Nov 27, 2026, 14:05" in the viewer's zone (with seconds for logs). */
export function formatDateTime(at: Date | string | number | null | undefined, locale: Locale, timeZone: string, opts: { seconds?: boolean } = {}): string {
  if (at === null || at === undefined) return "—";
  const ms = toMs(at);
  if (Number.isNaN(ms)) return "—";
  return new Intl.DateTimeFormat(locale, { year: "numeric", month: "short", day: "numeric", ...TIME, ...(opts.seconds ? { second: "2-digit" } : {}), timeZone }).format(ms);
}

export function formatNumber(value: number, locale: Locale, opts: Intl.NumberFormatOptions = {}): string {
  return new Intl.NumberFormat(locale, opts).format(value);
}
