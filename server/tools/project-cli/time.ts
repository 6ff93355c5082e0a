import "server-only";
import { addDays, formatDate, fromLocal, offsetMinutes, toLocal, type LocalDate, type LocalDateTime } from "../../lib/time";

// Instants are stored in UTC; the model reads them back in the event's own zone, with the
// offset written out, so "10:00+08:00" means what the user said. The zone arithmetic itself
// is shared (server/lib/time.ts); these are the two shapes project_cli needs.

const pad = (n: number) => String(n).padStart(2, "0");

// UTC, the zone of every run whose client names none, is plain arithmetic. Other zones go
// through Intl, whose first use in a process costs ~10 ms of ICU set-up.
const UTC = "UTC";

const utcLocal = (d: Date): LocalDateTime & { second: number } => ({
  year: d.getUTCFullYear(),
  month: d.getUTCMonth() + 1,
  day: d.getUTCDate(),
  hour: d.getUTCHours(),
  minute: d.getUTCMinutes(),
  second: d.getUTCSeconds(),
});

/** ISO-8601 in `timeZone` with its offset, to the second: 2026-04-21T10:00:00+08:00. */
export function formatInZone(date: Date, timeZone: string): string {
  const l = timeZone === UTC ? utcLocal(date) : toLocal(date, timeZone);
  const off = timeZone === UTC ? 0 : offsetMinutes(date, timeZone);
  const abs = Math.abs(off);
  return `${formatDate(l)}T${pad(l.hour)}:${pad(l.minute)}:${pad(l.second)}${off < 0 ? "-" : "+"}${pad(Math.trunc(abs / 60))}:${pad(abs % 60)}`;
}

/** First and last-exclusive instants of a calendar day (YYYY-MM-DD) in `timeZone`. */
export function dayBounds(date: string, timeZone: string): { start: Date; end: Date } {
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  const midnight = (d: LocalDate) =>
    timeZone === UTC ? new Date(Date.UTC(d.year, d.month - 1, d.day)) : fromLocal({ ...d, hour: 0, minute: 0 }, timeZone);
  return { start: midnight({ year, month, day }), end: midnight(addDays({ year, month, day }, 1)) };
}
