import "server-only";
import { HostApiFailure } from "./failure";

// Per-run token buckets (endpoint + run), refilled continuously at rate_per_minute with a
// burst of one minute's worth. In memory, per server process: with several instances behind
// a load balancer a runner gets up to that many times the limit, which is acceptable for a
// guard against runaway loops (a shared limiter would cost a database round trip per call).

type Bucket = { tokens: number; at: number };

const IDLE_MS = 5 * 60_000;
const SWEEP_EVERY = 1000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private calls = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Takes one token, or throws rate_limited with the wait until the next one. */
  take(key: string, ratePerMinute: number): void {
    const now = this.now();
    if (++this.calls % SWEEP_EVERY === 0) this.sweep(now);
    const perMs = ratePerMinute / 60_000;
    const bucket = this.buckets.get(key) ?? { tokens: ratePerMinute, at: now };
    bucket.tokens = Math.min(ratePerMinute, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens < 1) {
      const retryAfterMs = Math.ceil((1 - bucket.tokens) / perMs);
      throw new HostApiFailure("rate_limited", `This run may call the host API ${ratePerMinute} times a minute; retry in ${retryAfterMs} ms`, {
        retryable: true,
        details: { retry_after_ms: retryAfterMs, rate_per_minute: ratePerMinute },
      });
    }
    bucket.tokens -= 1;
  }

  private sweep(now: number): void {
    for (const [key, bucket] of this.buckets) if (now - bucket.at > IDLE_MS) this.buckets.delete(key);
  }
}

const globalForLimiter = globalThis as unknown as { dispatchRunnerApiLimiter?: RateLimiter };

export function runnerApiLimiter(): RateLimiter {
  globalForLimiter.dispatchRunnerApiLimiter ??= new RateLimiter();
  return globalForLimiter.dispatchRunnerApiLimiter;
}
