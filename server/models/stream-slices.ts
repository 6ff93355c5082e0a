import "server-only";
import { logger } from "../logger";

// Stream work in slices. A model answering quickly hands over hundreds of tokens in one
// network read, and each token becomes events that are checked, serialized, queued for the
// event log and fanned out. Done where the read lands, fifty such bursts fill one turn of the
// event loop for tens of milliseconds, and everything else that turn waits: a new run's
// request, the database's answer that accepts it, its first event. Under load that wait was
// most of a run's time to first event.
//
// So the readers queue that work here, and it runs in the loop's check phase, in arrival
// order, for at most SLICE_MS per turn; the rest waits for the next turn, after the loop has
// polled for requests and database answers. Nothing is dropped or reordered within a stream,
// and a reader pauses its source until its queued work has run, so a stream holds at most
// one unprocessed network read. Without this, fast model streams delayed new runs' first
// events (bench/history/2026-11-earlier-rounds.md, "Model output is worked through in slices").

const SLICE_MS = 2;

type Work = () => void;

let queue: Work[] = [];
let head = 0;
let scheduled = false;

function runSlice(): void {
  scheduled = false;
  const deadline = performance.now() + SLICE_MS;
  while (head < queue.length) {
    const work = queue[head]!;
    queue[head++] = undefined as unknown as Work;
    try {
      work();
    } catch (err) {
      // A reader settles its own failures; this keeps one reader's bug from stalling the others.
      logger.error({ err }, "stream work failed");
    }
    if (performance.now() >= deadline) break;
  }
  if (head === queue.length) {
    queue = [];
    head = 0;
    return;
  }
  if (head >= 1_024) {
    queue = queue.slice(head);
    head = 0;
  }
  schedule();
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(runSlice);
}

/** Runs `work` in a later stream slice, after the work queued before it. */
export function queueStreamWork(work: Work): void {
  queue.push(work);
  schedule();
}

/** How much queued stream work has not run yet (for tests and diagnostics). */
export function pendingStreamWork(): number {
  return queue.length - head;
}
