import { afterEach, describe, expect, it, vi } from "vitest";

// On Vercel a run is handed back, and a stream ends, before the invocation's limit; the run's own
// deadline stays counted from its acceptance. Elsewhere nothing changes. The platform may say when
// the invocation ends (its request context's deadline).

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
    const { runDeadline, streamDeadline, handOffAt } = await limitsWith(false);
    expect(runDeadline(600, now).getTime()).toBe(now + 600_000);
    expect(streamDeadline(now)).toBeNull();
    expect(handOffAt(now)).toBeNull();
  });

  it("on Vercel, hand a run back and end a stream before the routes' maxDuration, not the run's deadline", async () => {
    const { runDeadline, streamDeadline, handOffAt, FUNCTION_MAX_DURATION_SECONDS } = await limitsWith(true);
    const limit = now + FUNCTION_MAX_DURATION_SECONDS * 1000;
    expect(runDeadline(600, now).getTime()).toBe(now + 600_000);
    expect(handOffAt(now)).toBe(limit - 30_000);
    expect(streamDeadline(now)).toBe(limit - 10_000);
  });

  it("on Vercel, follow the deadline the platform gives the invocation", async () => {
    const { handOffAt, streamDeadline } = await limitsWith(true);
    globals[CONTEXT] = { get: () => ({ deadline: new Date(now + 100_000).toISOString() }) };
    expect(handOffAt(now)).toBe(now + 70_000);
    expect(streamDeadline(now)).toBe(now + 90_000);
    // An invocation already near its end hands its runs back at once, never in the past.
    globals[CONTEXT] = { get: () => ({ deadline: new Date(now + 5_000).toISOString() }) };
    expect(handOffAt(now)).toBe(now);
  });
});
