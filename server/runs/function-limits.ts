import "server-only";
import { getDeadline } from "@vercel/functions";
import { env } from "../env";

// On Vercel a request is served by a function invocation that the platform stops at its route's
// `maxDuration`, whatever it is doing: a run executing there and the streams it serves die with it.
// So on Vercel a run executing in an invocation is handed back a little before that limit (its
// completed steps written, its hold released) and goes on in another invocation
// (continuation.ts), until its own deadline, counted from its acceptance; and an event stream ends
// cleanly a little before the limit, without a terminal event, so the client rejoins with
// Last-Event-ID on a new invocation. A long-lived server (`npm start`) has no such limit.

/** The route segment `maxDuration` of every long-lived route (routes.test.ts checks each file). */
export const FUNCTION_MAX_DURATION_SECONDS = 300;

// Room for handing a run back: the runner's abort, writing what completed (retried briefly while
// the database is away), releasing it and asking for its continuation.
const HAND_OFF_MARGIN_MS = 30_000;
// Room for a stream's last frames and the end of the answer.
const STREAM_END_MARGIN_MS = 10_000;

/**
 * When the platform stops the current invocation (epoch ms), or null off Vercel. The platform's
 * request context may say so itself (@vercel/functions' getDeadline); else the invocation is
 * taken to have started now, with the routes' maxDuration.
 */
export function invocationDeadline(now = Date.now()): number | null {
  if (!env.VERCEL) return null;
  return getDeadline()?.getTime() ?? now + FUNCTION_MAX_DURATION_SECONDS * 1000;
}

/** A run's deadline: RUN_DEADLINE_SECONDS (or its binding's) from its acceptance, wherever it executes. */
export function runDeadline(seconds: number, now = Date.now()): Date {
  return new Date(now + seconds * 1000);
}

/** When a run executing in this invocation is handed back to go on in another one (epoch ms), or null. */
export function handOffAt(now = Date.now()): number | null {
  const limit = invocationDeadline(now);
  return limit === null ? null : Math.max(now, limit - HAND_OFF_MARGIN_MS);
}

/** When an event stream served by this invocation ends to let its client rejoin elsewhere, or null. */
export function streamDeadline(now = Date.now()): number | null {
  const limit = invocationDeadline(now);
  return limit === null ? null : Math.max(now, limit - STREAM_END_MARGIN_MS);
}
