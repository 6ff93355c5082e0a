import { describe, expect, it } from "vitest";
import { HostApiFailure } from "./failure";
import { RateLimiter } from "./rate-limiter";

describe("RateLimiter", () => {
  it("allows a minute's worth at once, then refills continuously", () => {
    let now = 0;
    const limiter = new RateLimiter(() => now);
    for (let i = 0; i < 60; i++) limiter.take("run", 60);
    let refusal: unknown;
    try {
      limiter.take("run", 60);
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toBeInstanceOf(HostApiFailure);
    expect(refusal).toMatchObject({ code: "rate_limited", status: 429, retryable: true, details: { retry_after_ms: 1000 } });
    now = 1000;
    expect(() => limiter.take("run", 60)).not.toThrow();
    expect(() => limiter.take("run", 60)).toThrow(HostApiFailure);
  });

  it("keeps a bucket per key", () => {
    const limiter = new RateLimiter(() => 0);
    limiter.take("a", 1);
    expect(() => limiter.take("a", 1)).toThrow(HostApiFailure);
    expect(() => limiter.take("b", 1)).not.toThrow();
  });
});
