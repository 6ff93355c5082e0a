import { describe, expect, it } from "vitest";
import { buildSystemPrompt } from "./prompt";

const nowLine = (iso: string, timeZone: string) =>
  buildSystemPrompt({ now: new Date(iso), timeZone, memoryFacts: [], context: [], clientTools: [], skills: [] })
    .split("\n")
    .find((line) => line.startsWith("Now: "));

describe("the system prompt's current time", () => {
  it("follows the clock from one minute, and one day, to the next", () => {
    expect(nowLine("2026-03-14T14:59:05.000Z", "Asia/Tokyo")).toBe(
      "Now: Saturday, March 14, 2026, 23:59 in the user's time zone Asia/Tokyo (2026-03-14T14:59:05.000Z UTC).",
    );
    expect(nowLine("2026-03-14T14:59:59.999Z", "Asia/Tokyo")).toBe(
      "Now: Saturday, March 14, 2026, 23:59 in the user's time zone Asia/Tokyo (2026-03-14T14:59:59.999Z UTC).",
    );
    expect(nowLine("2026-03-14T15:00:00.000Z", "Asia/Tokyo")).toBe(
      "Now: Sunday, March 15, 2026, 00:00 in the user's time zone Asia/Tokyo (2026-03-14T15:00:00.000Z UTC).",
    );
  });

  it("keeps each zone's own wall clock for the same instant", () => {
    expect(nowLine("2026-07-01T12:30:10.000Z", "America/New_York")).toContain("Wednesday, July 1, 2026, 08:30 in the user's time zone America/New_York");
    expect(nowLine("2026-07-01T12:30:20.000Z", "Asia/Kolkata")).toContain("Wednesday, July 1, 2026, 18:00 in the user's time zone Asia/Kolkata");
    expect(nowLine("2026-07-01T12:30:30.000Z", "America/New_York")).toContain("Wednesday, July 1, 2026, 08:30 in the user's time zone America/New_York");
  });

  it("does not reuse a line from another minute that comes back later", () => {
    expect(nowLine("2026-07-01T12:31:00.000Z", "Europe/Paris")).toContain("14:31 in the user's time zone Europe/Paris");
    expect(nowLine("2026-07-01T12:30:59.000Z", "Europe/Paris")).toContain("14:30 in the user's time zone Europe/Paris");
  });
});

describe("the system prompt's skills", () => {
  const prompt = (skills: string[]) => buildSystemPrompt({ now: new Date("2026-07-01T12:00:00Z"), timeZone: "UTC", memoryFacts: [], context: [], clientTools: [], skills });

  it("carries one index card per visible skill, how to read its document, and no action signatures", () => {
    const text = prompt(["calendar", "memory"]);
    expect(text).toContain("You are Dispatch, an assistant that manages the user's calendar and memory.");
    expect(text).toMatch(/^- calendar \(read, create, update, delete, share, accept_invite, reject_invite\): /m);
    expect(text).toMatch(/^- memory \(read, update\): /m);
    expect(text).not.toMatch(/^- contacts/m);
    expect(text).toContain('{"module":"skills","method":"read","input":{"skill":"<name>","action":"<action>"}}');
    expect(text).not.toContain("start_at");
  });

  it("says so when no skill is visible", () => {
    const text = prompt([]);
    expect(text).toContain("You are Dispatch, an assistant.");
    expect(text).toContain("(none enabled)");
  });
});
