import "server-only";
import { Cron } from "croner";
import { AppError } from "../kernel/errors";

// When a schedule is due: croner reads the cron expression in its IANA time zone (daylight saving
// included); a one-off time is due once. Invalid input is the caller's fault, answered as a 400
// that names the field and says what is wrong.

/** A schedule's timing as stored: a cron expression in a zone, or one time. */
export type Timing = { cron: string | null; timeZone: string; runAt: Date | null };

/** Throws a 400 unless `timeZone` is an IANA time zone this runtime knows. */
export function checkTimeZone(timeZone: string): void {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
  } catch {
    throw new AppError("BAD_REQUEST", `timeZone: ${JSON.stringify(timeZone)} is not an IANA time zone (for example Europe/Berlin, America/New_York, UTC)`, { field: "timeZone" });
  }
}

/** The expression as croner reads it (five fields, or six with seconds); a 400 naming what is wrong otherwise. */
function parseCron(cron: string, timeZone: string): Cron {
  try {
    return new Cron(cron, { timezone: timeZone, paused: true, mode: "5-or-6-parts" });
  } catch (err) {
    const reason = err instanceof Error ? err.message.replace(/^CronPattern: /, "") : "it cannot be read";
    throw new AppError("BAD_REQUEST", `cron: ${JSON.stringify(cron)} is not a valid cron expression (${reason}); for example "0 9 * * 1" is every Monday at 09:00`, { field: "cron" });
  }
}

/**
 * Throws a 400 unless the timing is valid: a known zone, a cron expression that is due at some
 * time and never twice within `minIntervalSeconds`.
 */
export function checkTiming(t: Timing, minIntervalSeconds: number): void {
  checkTimeZone(t.timeZone);
  if (t.cron === null) return;
  const next = parseCron(t.cron, t.timeZone).nextRuns(4, new Date());
  if (next.length === 0) throw new AppError("BAD_REQUEST", `cron: ${JSON.stringify(t.cron)} is never due`, { field: "cron" });
  for (let i = 1; i < next.length; i++) {
    if (next[i]!.getTime() - next[i - 1]!.getTime() < minIntervalSeconds * 1000) {
      throw new AppError("BAD_REQUEST", `cron: ${JSON.stringify(t.cron)} is due more often than every ${minIntervalSeconds} s, the shortest interval allowed`, { field: "cron" });
    }
  }
}

/**
 * The first due time after `after` (null: none). A one-off time is due once: before it fired
 * (`fired` false) it is its time, however long past, so a one-off missed while down still fires.
 */
export function nextDue(t: Timing, after: Date, fired = false): Date | null {
  if (t.cron === null) return fired ? null : t.runAt;
  return parseCron(t.cron, t.timeZone).nextRun(after);
}
