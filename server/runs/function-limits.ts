import "server-only";
import { getDeadline } from "@vercel/functions";
import { env } from "../env";

// On Vercel a request is served by a function invocation that the platform stops at its route's
// `maxDuration`, whatever it is doing: a run executing there and the streams it serves die with it.
// So on Vercel a run's deadline comes before that limit (it ends with DEADLINE_EXCEEDED, its end
// written), and an event stream ends cleanly a little before it, without a terminal event, so the
// client rejoins with Last-Event-ID on a new invocation. A long-lived server (`npm start`) has no
// such limit. Runs longer than one invocation continue through durable runs (#25), not here.

/** The route segment `maxDuration` of every long-lived route (routes.test.ts checks each file). */
export const FUNCTION_MAX_DURATION_SECONDS = 300;

// Room for a run's end after its deadline: the runner's abort, the closing statement (retried
// briefly while the database is away), and the answer.
const RUN_END_MARGIN_MS = 30_000;
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

/** A run's deadline: its configured one, brought before the invocation's end on Vercel. */
export function runDeadline(seconds: number, now = Date.now()): Date {
  const configured = now + seconds * 1000;
  const limit = invocationDeadline(now);
  return new Date(limit === null ? configured : Math.max(now, Math.min(configured, limit - RUN_END_MARGIN_MS)));
}

/** When an event stream served by this invocation ends to let its client rejoin elsewhere, or null. */
export function streamDeadline(now = Date.now()): number | null {
  const limit = invocationDeadline(now);
  return limit === null ? null : Math.max(now, limit - STREAM_END_MARGIN_MS);
}
