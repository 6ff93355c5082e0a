import "server-only";
import { z } from "zod";

// Field types the method schemas share. Dates are dates and instants carry their offset:
// a naive "2026-04-21T10:00:00" is rejected, never guessed into some zone.

export const instantField = () =>
  z.iso.datetime({ offset: true, local: false }).describe("ISO-8601 date-time with an offset or Z, e.g. 2026-04-21T10:00:00+08:00");

export const dateField = () => z.iso.date().describe("Calendar date, YYYY-MM-DD");

// UTC, what runs without a zone use, is known without asking ICU (whose first use in a process
// costs ~10 ms).
function isTimeZone(value: string): boolean {
  if (value === "UTC") return true;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

// Its own check rather than ui-schema's timeZoneSchema, so the handlers' schemas do not depend
// on the UiSchema module.
export const timeZoneField = () =>
  z.string().min(1).max(64).refine(isTimeZone, { message: "Unknown IANA time zone" }).describe("IANA time zone, e.g. Asia/Shanghai");

export const idField = () => z.guid().describe("Id returned by an earlier call");

export const emailField = () =>
  z.string().trim().toLowerCase().max(254).pipe(z.email()).describe("Email address of a Dispatch user");
