import { describe, expect, it } from "vitest";
import { dayBounds, formatInZone } from "./time";

describe("zone arithmetic", () => {
  it("writes instants in the zone with its offset", () => {
    const instant = new Date("2026-04-21T02:00:00.250Z");
    expect(formatInZone(instant, "Asia/Shanghai")).toBe("2026-04-21T10:00:00+08:00");
    expect(formatInZone(instant, "America/Sao_Paulo")).toBe("2026-04-20T23:00:00-03:00");
    expect(formatInZone(instant, "Asia/Kolkata")).toBe("2026-04-21T07:30:00+05:30");
    expect(formatInZone(instant, "UTC")).toBe("2026-04-21T02:00:00+00:00");
  });

  it("finds a local day's first and last instants, across DST changes", () => {
    expect(dayBounds("2026-04-21", "Asia/Shanghai")).toEqual({
      start: new Date("2026-04-20T16:00:00Z"),
      end: new Date("2026-04-21T16:00:00Z"),
    });
    const springForward = dayBounds("2026-03-08", "America/New_York");
    expect(springForward.start).toEqual(new Date("2026-03-08T05:00:00Z"));
    expect(springForward.end.getTime() - springForward.start.getTime()).toBe(23 * 3_600_000);
    const fallBack = dayBounds("2026-11-01", "America/New_York");
    expect(fallBack.end.getTime() - fallBack.start.getTime()).toBe(25 * 3_600_000);
    expect(dayBounds("2026-12-31", "UTC").end).toEqual(new Date("2027-01-01T00:00:00Z"));
  });

  it("answers UTC without Intl exactly as Intl answers its alias Etc/UTC", () => {
    for (const iso of ["2026-04-21T02:00:00.250Z", "1999-12-31T23:59:59Z", "2028-02-29T12:34:56Z"]) {
      const instant = new Date(iso);
      expect(formatInZone(instant, "UTC")).toBe(formatInZone(instant, "Etc/UTC"));
    }
    for (const day of ["2026-04-21", "2028-02-29", "2026-12-31"]) expect(dayBounds(day, "UTC")).toEqual(dayBounds(day, "Etc/UTC"));
  });
});
