import "server-only";
import { logger } from "../../logger";

// Host API calls refused before their credential was accepted are counted here, by reason,
// never stored one row each: anyone can send them, with any action name, as fast as they like.
// The log gets the first refusal and then at most one summary line per interval.

const LOG_EVERY_MS = 60_000;

const totals = new Map<string, number>();
let sinceLastLine = 0;
let lastLineAt = Number.NEGATIVE_INFINITY;

/** Counts one refused call; logs it when no line was written for a while, with the count since the last one. */
export function countRefusedCall(reason: string): void {
  totals.set(reason, (totals.get(reason) ?? 0) + 1);
  sinceLastLine++;
  const now = performance.now();
  if (now - lastLineAt < LOG_EVERY_MS) return;
  logger.warn({ reason, refused: sinceLastLine, totals: refusedCallCounts() }, "runner API calls refused before authentication (sampled)");
  lastLineAt = now;
  sinceLastLine = 0;
}

/** Calls refused before authentication since this process started, by reason (the failure code). */
export function refusedCallCounts(): Record<string, number> {
  return Object.fromEntries(totals);
}
