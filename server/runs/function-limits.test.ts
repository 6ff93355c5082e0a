import { afterEach, describe, expect, it, vi } from "vitest";

// On Vercel the run deadline and a stream's end come before the invocation's limit; elsewhere
// neither changes. The platform may say when the invocation ends (its request context's deadline).

const CONTEXT = Symbol.for("@vercel/request-context");
const globals = globalThis as unknown as Record<symbol, { get(): Record<string, unknown> } | undefined>;

async function limitsWith(vercel: boolean) {
  vi.resetModules();
  vi.doMock("../env", () => ({ env: { VERCEL: vercel } }));
  return import("./function-limits");
}

afterEach(() => {
  delete globals[CONTEXT];
  vi.doUnmock("../env");
});

describe("function limits", () => {
  const now = Date.parse("2026-11-25T12:00:00Z");

  it("leave a long-lived server's runs and streams alone", async () => {
    const { runDeadline, streamDeadline } = await limitsWith(false);
    expect(runDeadline(600, now).getTime()).toBe(now + 600_000);
    expect(streamDeadline(now)).toBeNull();
  });

  it("on Vercel, bring a run's deadline and a stream's end before the routes' maxDuration", async () => {
    const { runDeadline, streamDeadline, FUNCTION_MAX_DURATION_SECONDS } = await limitsWith(true);
    const limit = now + FUNCTION_MAX_DURATION_SECONDS * 1000;
    expect(runDeadline(600, now).getTime()).toBe(limit - 30_000);
    expect(runDeadline(60, now).getTime()).toBe(now + 60_000);
    expect(streamDeadline(now)).toBe(limit - 10_000);
  });

  it("on Vercel, follow the deadline the platform gives the invocation", async () => {
    const { runDeadline, streamDeadline } = await limitsWith(true);
    globals[CONTEXT] = { get: () => ({ deadline: new Date(now + 100_000).toISOString() }) };
    expect(runDeadline(600, now).getTime()).toBe(now + 70_000);
    expect(streamDeadline(now)).toBe(now + 90_000);
    // An invocation already near its end: the run's deadline is now, not in the past.
    globals[CONTEXT] = { get: () => ({ deadline: new Date(now + 5_000).toISOString() }) };
    expect(runDeadline(600, now).getTime()).toBe(now);
  });
});
