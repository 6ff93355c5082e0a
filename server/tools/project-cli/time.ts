import "server-only";

// Instants are stored in UTC; the model reads them back in the event's own zone, with the
// offset written out, so "10:00+08:00" means what the user said.

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

function wallClock(ms: number, timeZone: string): { y: number; mo: number; d: number; h: number; mi: number; s: number } {
  const parts = Object.fromEntries(formatter(timeZone).formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  return { y: Number(parts.year), mo: Number(parts.month), d: Number(parts.day), h: Number(parts.hour), mi: Number(parts.minute), s: Number(parts.second) };
}

/** The zone's UTC offset at instant `ms`, in minutes. */
function offsetMinutes(ms: number, timeZone: string): number {
  const w = wallClock(ms, timeZone);
  return Math.round((Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s) - Math.floor(ms / 1000) * 1000) / 60_000);
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, "0");

/** ISO-8601 in `timeZone` with its offset, to the second: 2026-04-21T10:00:00+08:00. */
export function formatInZone(date: Date, timeZone: string): string {
  const ms = date.getTime();
  const w = wallClock(ms, timeZone);
  const off = offsetMinutes(ms, timeZone);
  const sign = off < 0 ? "-" : "+";
  return `${pad(w.y, 4)}-${pad(w.mo)}-${pad(w.d)}T${pad(w.h)}:${pad(w.mi)}:${pad(w.s)}${sign}${pad(Math.trunc(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
}

/** The instant a local wall-clock time happens in `timeZone` (the later one across a DST gap). */
function zonedToInstant(y: number, mo: number, d: number, timeZone: string): Date {
  const guess = Date.UTC(y, mo - 1, d);
  const first = guess - offsetMinutes(guess, timeZone) * 60_000;
  const second = guess - offsetMinutes(first, timeZone) * 60_000;
  return new Date(second);
}

/** First and last-exclusive instants of a calendar day (YYYY-MM-DD) in `timeZone`. */
export function dayBounds(date: string, timeZone: string): { start: Date; end: Date } {
  const [y, mo, d] = date.split("-").map(Number) as [number, number, number];
  const next = new Date(Date.UTC(y, mo - 1, d + 1));
  return {
    start: zonedToInstant(y, mo, d, timeZone),
    end: zonedToInstant(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate(), timeZone),
  };
}
