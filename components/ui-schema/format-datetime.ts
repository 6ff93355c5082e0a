// Date formatting for cards: 24-hour times, in the viewer's zone when the page knows it (see
// viewer-zone.ts), else in the zone the card carries, named, so "10:00 GMT+8" is never ambiguous.

export type DateTimeParts = "date" | "time" | "datetime";

type FormatOptions = {
  locale: string;
  /** IANA zone; when absent the ISO value's own offset is used. */
  timeZone?: string;
  parts: DateTimeParts;
  /** Append the zone's short name, for values that show a time. */
  withZone?: boolean;
  /** ISO value whose offset stands in for a missing `timeZone`, so an event's end shares its start's zone. */
  zoneOf?: string;
};

const DATE: Intl.DateTimeFormatOptions = { weekday: "short", year: "numeric", month: "short", day: "numeric" };
const TIME: Intl.DateTimeFormatOptions = { hour: "2-digit", minute: "2-digit", hourCycle: "h23" };

const OFFSET = /(Z|([+-])(\d{2}):?(\d{2}))$/i;

/** Minutes east of UTC written in an ISO value, or undefined when it carries none. */
function offsetMinutes(iso: string): number | undefined {
  const match = OFFSET.exec(iso);
  if (!match) return undefined;
  if (match[1]?.toUpperCase() === "Z") return 0;
  const sign = match[2] === "-" ? -1 : 1;
  return sign * (Number(match[3]) * 60 + Number(match[4]));
}

function offsetLabel(minutes: number): string {
  if (minutes === 0) return "UTC";
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  return `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

function partsOptions(parts: DateTimeParts): Intl.DateTimeFormatOptions {
  if (parts === "date") return DATE;
  if (parts === "time") return TIME;
  return { ...DATE, ...TIME };
}

/** Formats an ISO instant for display; returns the ISO text itself if it cannot be formatted. */
export function formatInstant(iso: string, { locale, timeZone, parts, withZone = false, zoneOf = iso }: FormatOptions): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const showZone = withZone && parts !== "date";
  try {
    if (timeZone) {
      const zone: Intl.DateTimeFormatOptions = showZone ? { timeZoneName: "short" } : {};
      return new Intl.DateTimeFormat(locale, { ...partsOptions(parts), ...zone, timeZone }).format(ms);
    }
    // Intl on current runtimes rejects offset zones like "+08:00", so shift the instant
    // and format it as UTC, then name the offset ourselves.
    const offset = offsetMinutes(zoneOf) ?? 0;
    const text = new Intl.DateTimeFormat(locale, { ...partsOptions(parts), timeZone: "UTC" }).format(ms + offset * 60_000);
    return showZone ? `${text} ${offsetLabel(offset)}` : text;
  } catch {
    return iso;
  }
}

/** True when both instants fall on the same calendar day in `timeZone`, or else in the first one's offset. */
export function isSameDay(a: string, b: string, locale: string, timeZone?: string): boolean {
  const day = (iso: string) => formatInstant(iso, { locale, timeZone, parts: "date", zoneOf: a });
  return day(a) === day(b);
}

/** The instant just before `iso`, as ISO with the same offset: the last moment of an exclusive end. */
export function justBefore(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const offset = offsetMinutes(iso) ?? 0;
  const shifted = new Date(ms - 1 + offset * 60_000).toISOString().slice(0, 23);
  return `${shifted}${offset === 0 ? "Z" : offsetLabel(offset).slice(3)}`;
}
