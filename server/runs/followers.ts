import "server-only";

// Who is watching each run's event stream on this instance. AG-UI's HTTP transport stops a run
// by dropping the request that streams it (HttpAgent.abortRun, CopilotKit's stopAgent), so a
// run started that way is abandoned when its last follower leaves before the run's end and
// nobody attaches again within a grace: then `onAbandoned` runs (it cancels the run). Runs
// without `onAbandoned` (background 202 runs, the seed endpoint's streams) are never stopped
// by a disconnect.
//
// The counts are per instance; departures.ts makes the requester's leaving, a re-attach and the
// grace's end meet across instances (onLeft records the departure where every instance sees it).

type Watch = { count: number; onAbandoned: (() => void) | null; onLeft: (() => void) | null; timer: NodeJS.Timeout | null; graceMs: number };

const watches = new Map<string, Watch>();

/**
 * Counts a follower of the run until the returned function is called with whether the
 * follower saw the run's end. `onAbandoned` (the requester's stream) arms the stop-on-leave rule.
 */
export function followRunStream(runId: string, opts: { onAbandoned?: () => void; onLeft?: () => void; graceMs?: number } = {}): (sawEnd: boolean) => void {
  let watch = watches.get(runId);
  if (!watch) {
    watch = { count: 0, onAbandoned: null, onLeft: null, timer: null, graceMs: 0 };
    watches.set(runId, watch);
  }
  const w = watch;
  w.count++;
  if (opts.onAbandoned) {
    w.onAbandoned = opts.onAbandoned;
    w.onLeft = opts.onLeft ?? null;
    w.graceMs = opts.graceMs ?? 0;
  }
  if (w.timer) {
    clearTimeout(w.timer);
    w.timer = null;
  }
  let released = false;
  return (sawEnd) => {
    if (released) return;
    released = true;
    w.count--;
    if (w.count > 0) return;
    if (sawEnd || !w.onAbandoned) {
      watches.delete(runId);
      return;
    }
    const abandon = w.onAbandoned;
    w.onLeft?.();
    w.timer = setTimeout(() => {
      watches.delete(runId);
      abandon();
    }, w.graceMs);
    w.timer.unref();
  };
}

/** Ends the grace of an abandoned run here without acting on it (its next run superseded it). */
export function forgetAbandoned(runId: string): void {
  const w = watches.get(runId);
  if (!w || w.count > 0 || !w.timer) return;
  clearTimeout(w.timer);
  watches.delete(runId);
}
