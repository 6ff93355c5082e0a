import "server-only";

// Calendar arithmetic in the user's IANA time zone with nothing but Intl: local dates are
// plain {year, month, day} values, and instants are written as ISO strings with the zone's
// offset at that moment, which is what project_cli's calendar methods expect.

/** Time zone of a run whose client names none. */
export const DEFAULT_TIME_ZONE = "UTC";

export type LocalDate = { year: number; month: number; day: number };
export type LocalDateTime = LocalDate & { hour: number; minute: number };

const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

// Zones already checked: asking Intl again would build a formatter on every run.
const knownZones = new Map<string, boolean>();
const KNOWN_ZONES_MAX = 2_000;

export function isTimeZone(value: unknown): value is string {
  if (typeof value !== "string" || value.length === 0 || value.length > 64) return false;
  const known = knownZones.get(value);
  if (known !== undefined) return known;
  let valid: boolean;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: value });
    valid = true;
  } catch {
    valid = false;
  }
  if (knownZones.size < KNOWN_ZONES_MAX) knownZones.set(value, valid);
  return valid;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function partsFormatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall-clock date and time of an instant in a zone. */
export function toLocal(instant: Date, timeZone: string): LocalDateTime & { second: number } {
  const parts = Object.fromEntries(partsFormatter(timeZone).formatToParts(instant).map((p) => [p.type, p.value]));
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

/** Minutes the zone is ahead of UTC at an instant. */
export function offsetMinutes(instant: Date, timeZone: string): number {
  const l = toLocal(instant, timeZone);
  const asUtc = Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second);
  return Math.round((asUtc - Math.floor(instant.getTime() / 1000) * 1000) / 60_000);
}

/** The instant a wall-clock time happens in a zone (the later one across a DST gap). */
export function fromLocal(local: LocalDateTime, timeZone: string): Date {
  const wall = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute);
  let instant = wall - offsetMinutes(new Date(wall), timeZone) * 60_000;
  instant = wall - offsetMinutes(new Date(instant), timeZone) * 60_000;
  return new Date(instant);
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

export function formatDate(d: LocalDate): string {
  return `${pad(d.year, 4)}-${pad(d.month)}-${pad(d.day)}`;
}

/** ISO 8601 with the zone's offset at that instant, e.g. 2026-01-02T10:00:00+01:00. */
export function zonedIso(local: LocalDateTime, timeZone: string): string {
  const offset = offsetMinutes(fromLocal(local, timeZone), timeZone);
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  return `${formatDate(local)}T${pad(local.hour)}:${pad(local.minute)}:00${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

export function addDays(d: LocalDate, days: number): LocalDate {
  const t = new Date(Date.UTC(d.year, d.month - 1, d.day + days));
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
}

export function weekdayOf(d: LocalDate): Weekday {
  return WEEKDAYS[new Date(Date.UTC(d.year, d.month - 1, d.day)).getUTCDay()]!;
}

export function parseWeekday(word: string): Weekday | null {
  const w = word.toLowerCase();
  return WEEKDAYS.find((day) => day === w || day.slice(0, 3) === w) ?? null;
}

/** The first date on or after `from` that falls on `weekday`. */
export function nextWeekday(from: LocalDate, weekday: Weekday): LocalDate {
  const delta = (WEEKDAYS.indexOf(weekday) - WEEKDAYS.indexOf(weekdayOf(from)) + 7) % 7;
  return addDays(from, delta);
}

/** Monday of the week that contains `d` (weeks run Monday to Sunday). */
export function startOfWeek(d: LocalDate): LocalDate {
  const index = (WEEKDAYS.indexOf(weekdayOf(d)) + 6) % 7;
  return addDays(d, -index);
}

export function localToday(now: Date, timeZone: string): LocalDate {
  const { year, month, day } = toLocal(now, timeZone);
  return { year, month, day };
}

/**
 * The run's time zone: `forwardedProps.timeZone` (what Dispatch's own UI sends), else a
 * `context` entry that describes itself as the time zone, else UTC. Anything that is not
 * an IANA zone this runtime knows is ignored rather than trusted.
 */
export function resolveTimeZone(input: { forwardedProps?: unknown; context: readonly { description: string; value: string }[] }): string {
  const forwarded = input.forwardedProps as { timeZone?: unknown; time_zone?: unknown } | null | undefined;
  const candidate = forwarded?.timeZone ?? forwarded?.time_zone;
  if (isTimeZone(candidate)) return candidate;
  const entry = input.context.find((c) => /time\s*-?\s*zone/i.test(c.description) && isTimeZone(c.value.trim()));
  return entry ? entry.value.trim() : DEFAULT_TIME_ZONE;
}
