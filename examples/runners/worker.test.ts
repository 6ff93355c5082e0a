import { describe, expect, it } from "vitest";
import { planToolCall } from "./worker";

const ctx = (timezone: string | null) => ({ runtime: { host: "dispatch", trace_id: "t", timezone, static_refs: {}, metadata: {} } });

describe("worker's project_cli plan", () => {
  it("creates an event when the text names a title and a start", () => {
    expect(planToolCall('Please create "Dentist visit" at 2031-03-04T09:00:00Z for 45 minutes', ctx(null))).toEqual({
      module: "calendar",
      method: "create",
      input: { title: "Dentist visit", start_at: "2031-03-04T09:00:00Z", duration_minutes: 45 },
    });
    expect(planToolCall("schedule “Standup” at 2031-03-05T10:00:00+08:00", ctx(null)).input).toMatchObject({ title: "Standup", duration_minutes: 30 });
  });

  it("otherwise reads the day named in the text, or today in the run's time zone", () => {
    expect(planToolCall("What is on 2031-03-04?", ctx("Asia/Tokyo"))).toEqual({
      module: "calendar",
      method: "read",
      input: { mode: "day", date: "2031-03-04", time_zone: "Asia/Tokyo" },
    });
    const today = planToolCall("what's on today", ctx(null)).input;
    expect(today).toEqual({ mode: "day", date: new Date().toISOString().slice(0, 10), time_zone: "UTC" });
  });
});
