import "server-only";
import { addDays, formatDate, fromLocal, offsetMinutes, toLocal } from "../../agent/time";

// Instants are stored in UTC; the model reads them back in the event's own zone, with the
// offset written out, so "10:00+08:00" means what the user said. The zone arithmetic itself
// is the agent's (server/agent/time.ts); these are the two shapes project_cli needs.

const pad = (n: number) => String(n).padStart(2, "0");

/** ISO-8601 in `timeZone` with its offset, to the second: 2026-04-21T10:00:00+08:00. */
export function formatInZone(date: Date, timeZone: string): string {
  const l = toLocal(date, timeZone);
  const off = offsetMinutes(date, timeZone);
  const abs = Math.abs(off);
  return `${formatDate(l)}T${pad(l.hour)}:${pad(l.minute)}:${pad(l.second)}${off < 0 ? "-" : "+"}${pad(Math.trunc(abs / 60))}:${pad(abs % 60)}`;
}

/** First and last-exclusive instants of a calendar day (YYYY-MM-DD) in `timeZone`. */
export function dayBounds(date: string, timeZone: string): { start: Date; end: Date } {
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  const next = addDays({ year, month, day }, 1);
  return { start: fromLocal({ year, month, day, hour: 0, minute: 0 }, timeZone), end: fromLocal({ ...next, hour: 0, minute: 0 }, timeZone) };
}
