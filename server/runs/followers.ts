import "server-only";

// Who is watching each run's event stream on this instance. AG-UI's HTTP transport stops a run
// by dropping the request that streams it (HttpAgent.abortRun, CopilotKit's stopAgent), so a
// run started that way is abandoned when its last follower leaves before the run's end and
// nobody attaches again within a grace: then `onAbandoned` runs (it cancels the run). Runs
// without `onAbandoned` (background 202 runs, the seed endpoint's streams) are never stopped
// by a disconnect.
//
// This is per instance: a client that re-attaches through another instance is not seen here.

type Watch = { count: number; onAbandoned: (() => void) | null; timer: NodeJS.Timeout | null; graceMs: number };

const watches = new Map<string, Watch>();

/**
 * Counts a follower of the run until the returned function is called with whether the
 * follower saw the run's end. `onAbandoned` (the requester's stream) arms the stop-on-leave rule.
 */
export function followRunStream(runId: string, opts: { onAbandoned?: () => void; graceMs?: number } = {}): (sawEnd: boolean) => void {
  let watch = watches.get(runId);
  if (!watch) {
    watch = { count: 0, onAbandoned: null, timer: null, graceMs: 0 };
    watches.set(runId, watch);
  }
  const w = watch;
  w.count++;
  if (opts.onAbandoned) {
    w.onAbandoned = opts.onAbandoned;
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
    w.timer = setTimeout(() => {
      watches.delete(runId);
      abandon();
    }, w.graceMs);
    w.timer.unref();
  };
}

/** True while the run's requester has left and nobody follows it (its grace is running). */
export function isAbandoned(runId: string): boolean {
  const w = watches.get(runId);
  return w !== undefined && w.count === 0 && w.onAbandoned !== null;
}

/** Ends the grace of an abandoned run at once (its next run is waiting); false when it is not abandoned. */
export function abandonNow(runId: string): boolean {
  const w = watches.get(runId);
  if (!w || w.count > 0 || !w.onAbandoned || !w.timer) return false;
  clearTimeout(w.timer);
  watches.delete(runId);
  w.onAbandoned();
  return true;
}
