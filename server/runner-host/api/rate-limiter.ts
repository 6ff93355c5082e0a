import "server-only";
import { logger } from "../../logger";
import { deleteIdleRateBuckets, takeRateToken } from "../repository/runners";
import { HostApiFailure } from "./failure";

// Per-run token buckets (endpoint + run), refilled continuously at rate_per_minute with a
// burst of one minute's worth, kept in the database (runner_api_rate_buckets) so every server
// instance takes from the same bucket: two instances give a run its limit once, not twice. One
// statement per host API call, on the database's clock.

// A bucket idle this long is full again; its row can go.
const IDLE_SECONDS = 5 * 60;
const SWEEP_EVERY = 1000;
let calls = 0;

/** Takes one token for `key`, or throws rate_limited with the wait until the next one. */
export async function takeRunnerApiToken(key: string, ratePerMinute: number): Promise<void> {
  if (++calls % SWEEP_EVERY === 0) {
    deleteIdleRateBuckets({ idleSeconds: IDLE_SECONDS }).catch((err: unknown) => logger.warn({ err }, "could not sweep idle host API rate buckets"));
  }
  const { allowed, tokens } = await takeRateToken({ key, ratePerMinute });
  if (allowed) return;
  const retryAfterMs = Math.max(1, Math.ceil(((1 - tokens) * 60_000) / ratePerMinute));
  throw new HostApiFailure("rate_limited", `This run may call the host API ${ratePerMinute} times a minute; retry in ${retryAfterMs} ms`, {
    retryable: true,
    details: { retry_after_ms: retryAfterMs, rate_per_minute: ratePerMinute },
  });
}
