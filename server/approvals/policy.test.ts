import { describe, expect, it } from "vitest";
import { needsApproval } from "./policy";

describe("needsApproval", () => {
  it("never asks for reads, asks for every write under always, and nothing under never or auto", () => {
    expect(needsApproval("always", "calendar", "read", { mode: "day", date: "2026-01-02" })).toBe(false);
    expect(needsApproval("always", "memory", "update", { facts: [] })).toBe(true);
    expect(needsApproval("always", "calendar", "create", { title: "x" })).toBe(true);
    expect(needsApproval("never", "calendar", "share", { event_id: "e", email: "a@b.c" })).toBe(false);
    expect(needsApproval("auto", "calendar", "delete", { event_id: "e" })).toBe(false);
    expect(needsApproval("always", "calendar", "nonexistent", {})).toBe(false);
  });

  it("under others, asks only for writes that reach other people", () => {
    expect(needsApproval("others", "memory", "update", { facts: [] })).toBe(false);
    expect(needsApproval("others", "calendar", "create", { title: "alone" })).toBe(false);
    expect(needsApproval("others", "calendar", "create", { title: "together", attendees: ["ana@example.com"] })).toBe(true);
    for (const method of ["share", "accept_invite", "reject_invite", "delete", "update"]) expect(needsApproval("others", "calendar", method, {})).toBe(true);
  });
});
