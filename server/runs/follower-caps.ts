import "server-only";
import { env } from "../env";
import { AppError } from "../kernel/errors";
import { metrics } from "../telemetry/metrics";
import type { EventRecord } from "../kernel/runs";

// How many streams follow runs on this instance: at most RUN_FOLLOWERS_PER_RUN on one run and
// RUN_FOLLOWERS_PER_USER for one user. Every follower holds a socket and a share of each event's
// fan-out, so thousands on one run starve the process (resets, a slow health check). A follower
// past a cap is refused with 429 before its stream (or, for a run door, its run) starts.

const perRun = new Map<string, number>();
const perUser = new Map<string, number>();

const take = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
function give(counts: Map<string, number>, key: string): void {
  const n = (counts.get(key) ?? 0) - 1;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}

/** A user's place among followers, taken before the run is known; `forRun` completes it. */
export class FollowerSlot {
  private runId: string | null = null;
  private released = false;

  constructor(private readonly userId: string) {}

  /** Claims a place on the run too; throws 429 (and gives the user's place back) when the run has all it may. */
  forRun(runId: string): this {
    if ((perRun.get(runId) ?? 0) >= env.RUN_FOLLOWERS_PER_RUN) {
      this.release();
      throw new AppError(
        "RATE_LIMITED",
        `This run already has ${env.RUN_FOLLOWERS_PER_RUN} streams following it on this server (RUN_FOLLOWERS_PER_RUN): close a stream you no longer read, or fetch the run's status instead of streaming it`,
        { limit: "RUN_FOLLOWERS_PER_RUN", max: env.RUN_FOLLOWERS_PER_RUN },
      );
    }
    take(perRun, runId);
    this.runId = runId;
    return this;
  }

  /** Gives the places back; safe to call more than once. */
  release(): void {
    if (this.released) return;
    this.released = true;
    give(perUser, this.userId);
    metrics.activeStreams.dec();
    if (this.runId) give(perRun, this.runId);
  }

  /** Wraps a stream's source so the places go back when the stream ends, however it ends. */
  holding<T extends EventRecord | readonly EventRecord[]>(source: (signal: AbortSignal) => AsyncIterable<T>): (signal: AbortSignal) => AsyncIterable<T> {
    const release = () => this.release();
    return (signal) => {
      signal.addEventListener("abort", release, { once: true });
      return (async function* () {
        try {
          yield* source(signal);
        } finally {
          release();
        }
      })();
    };
  }
}

/** Claims a place for one more stream of this user's; throws 429 when they hold all they may. */
export function admitFollower({ userId }: { userId: string }): FollowerSlot {
  if ((perUser.get(userId) ?? 0) >= env.RUN_FOLLOWERS_PER_USER) {
    throw new AppError(
      "RATE_LIMITED",
      `You already have ${env.RUN_FOLLOWERS_PER_USER} event streams open on this server (RUN_FOLLOWERS_PER_USER): close one you no longer read before opening another`,
      { limit: "RUN_FOLLOWERS_PER_USER", max: env.RUN_FOLLOWERS_PER_USER },
    );
  }
  take(perUser, userId);
  metrics.activeStreams.inc();
  return new FollowerSlot(userId);
}

/** Runs `start` (the run a stream will follow); a failure gives the slot back. */
export async function releasingOnError<T>(slot: FollowerSlot | null, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (err) {
    slot?.release();
    throw err;
  }
}
