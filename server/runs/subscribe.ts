import "server-only";
import { AppError } from "../kernel/errors";
import { logger } from "../logger";
import { listen } from "./repository/notifications";
import { RUN_EVENTS_CHANNEL } from "./repository/run-events";
import { lastPersistedSeq, readEventPage } from "./event-log";
import { onDatabaseLost } from "./database-reach";
import { streamDeadline } from "./function-limits";
import { END_OF_RUN, getLiveRun, type LiveRun } from "./live-runs";
import { TERMINAL_EVENT_TYPES, type EventRecord } from "../kernel/runs";

const PAGE = 500;
// A follower of a run executing elsewhere reads the log again after this long without a
// notification: LISTEN may be down (a direct connection lost, or none through a pooler), and a
// run closed by recovery on an instance whose notification was missed must still end the stream.
export const FOLLOWER_REREAD_MS = 2_000;

/**
 * Every event of a run after `after`, in order, without gap or duplicate, then the live
 * ones until the run ends or `signal` aborts, in batches: whatever arrived since the last
 * batch was taken. Served from memory when this instance runs the run; otherwise from the
 * event log, woken by the other instance's notifications.
 *
 * Live events are handed over once per turn of the event loop (setImmediate), so a model
 * that streams many tokens in one network read costs one wake-up and one write per
 * subscriber rather than one per token.
 *
 * On Vercel the follow also ends, without a terminal event, shortly before the invocation serving
 * it is stopped (function-limits.ts): the client rejoins from its last event id. So does a follow
 * from memory when this instance loses its database (database-reach.ts): nothing it holds becomes
 * durable, so nothing more would reach the client until the database is back; it rejoins, here or
 * on an instance that reaches the database, and misses nothing.
 */
export async function* followRunBatches(opts: {
  runId: string;
  after: number;
  signal: AbortSignal;
  /** The run had ended when the caller read it: its log is complete, and a read replica that has all of it may serve it. */
  ended?: boolean;
}): AsyncGenerator<EventRecord[]> {
  const { runId, signal } = opts;
  const waker = createWaker();
  signal.addEventListener("abort", waker.poke);
  const until = streamDeadline();
  let outOfTime = false;
  const budget = until === null ? undefined : setTimeout(() => ((outOfTime = true), waker.poke()), until - Date.now());
  const control: FollowControl = { waker, stopped: () => signal.aborted || outOfTime };
  try {
    const local = getLiveRun(runId);
    if (local) yield* followFromMemory(local, opts.after, control);
    else yield* followFromLog(runId, opts.after, control, opts.ended === true);
  } finally {
    clearTimeout(budget);
    signal.removeEventListener("abort", waker.poke);
  }
}

/** How a follow waits for more, and whether its client is gone or its time is up. */
type FollowControl = { waker: Waker; stopped: () => boolean };

type Waker = {
  /** Wakes the waiting follow now. */
  poke: () => void;
  /** Wakes it once this turn of the event loop is over, however many times it is called in it. */
  pokeSoon: () => void;
  /** Waits for a poke, or not at all when `ready()`; after `reread` (when given) its `onReread` runs and it wakes. */
  wait: (ready: () => boolean, reread?: { ms: number; onReread: () => void }) => Promise<void>;
};

function createWaker(): Waker {
  let wake: (() => void) | null = null;
  let scheduled = false;
  const poke = () => {
    wake?.();
    wake = null;
  };
  return {
    poke,
    pokeSoon: () => {
      if (scheduled) return;
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        poke();
      });
    },
    async wait(ready, reread) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (ready()) poke();
        else if (reread) {
          timer = setTimeout(() => {
            reread.onReread();
            poke();
          }, reread.ms);
        }
      });
      clearTimeout(timer);
    },
  };
}

/** A run executing on this instance, followed from its memory. */
async function* followFromMemory(local: LiveRun, after: number, { waker, stopped }: FollowControl): AsyncGenerator<EventRecord[]> {
  let cursor = after;
  let pending: EventRecord[] = [];
  let leftThisInstance = false;
  let databaseLost = false;
  const stopLive = local.subscribe(cursor, (rec) => {
    if (rec === END_OF_RUN) leftThisInstance = true;
    else pending.push(rec);
    waker.pokeSoon();
  });
  const stopDatabaseWatch = onDatabaseLost(() => {
    databaseLost = true;
    waker.poke();
  });
  try {
    while (!stopped()) {
      if (pending.length > 0) {
        const taken = pending;
        pending = [];
        const { batch, ended } = admit(taken, cursor);
        if (batch.length > 0) {
          cursor = batch[batch.length - 1]!.seq;
          yield batch;
        }
        if (ended) return;
        continue;
      }
      // The run left this instance without a terminal event it could write: the stream ends
      // here, and the run's status (closed by recovery) says what happened.
      if (leftThisInstance || databaseLost) return;
      await waker.wait(() => pending.length > 0 || stopped() || leftThisInstance || databaseLost);
    }
  } finally {
    stopLive();
    stopDatabaseWatch();
  }
}

/** A run executing elsewhere (or ended), followed from the event log, woken by its notifications. */
async function* followFromLog(runId: string, after: number, { waker, stopped }: FollowControl, runEnded: boolean): AsyncGenerator<EventRecord[]> {
  let cursor = after;
  let remoteHigh = 0;
  // Listen before reading, so an event committed in between still wakes us. Without LISTEN
  // the follower still ends: it reads the log every FOLLOWER_REREAD_MS.
  const stopRemote = await listen(RUN_EVENTS_CHANNEL, (payload) => {
    const [id, seq] = payload.split(":");
    if (id === runId) {
      remoteHigh = Math.max(remoteHigh, Number(seq));
      waker.poke();
    }
  }).catch((err: unknown) => {
    logger.warn({ err, runId }, "no run notifications; following the run by reading its log");
    return null;
  });
  const readAll = () => (remoteHigh = Number.MAX_SAFE_INTEGER);
  // Whether a read found the log's hot rows: after that an empty page is not an archived log.
  let hot = false;
  const read = async (after: number, limit: number) => {
    const page = await readEventPage({ runId, after, limit, ended: runEnded, hot });
    hot = page.hot;
    return page.records;
  };
  try {
    readAll(); // read once unconditionally
    // A client resuming after the run's terminal event has everything: it ends at once.
    if (cursor > 0 && TERMINAL_EVENT_TYPES.has((await read(cursor - 1, 1))[0]?.type ?? "")) return;
    while (!stopped()) {
      if (remoteHigh > cursor) {
        remoteHigh = 0;
        for (;;) {
          const page = await read(cursor, PAGE);
          const { batch, ended } = admit(page, cursor);
          if (batch.length > 0) {
            cursor = batch[batch.length - 1]!.seq;
            yield batch;
          }
          if (ended) return;
          if (page.length < PAGE) break;
        }
        continue;
      }
      await waker.wait(() => stopped() || remoteHigh > cursor, { ms: FOLLOWER_REREAD_MS, onReread: readAll });
    }
  } finally {
    stopRemote?.();
  }
}

/**
 * Refuses a resume point past the last event any client can have received: events reach clients
 * only once durable, so such an id names an event the log never had; and a run whose events
 * expired (AppError GONE), from any point.
 */
export async function checkResumePoint({ runId, clientRunId, after }: { runId: string; clientRunId: string; after: number }): Promise<void> {
  const local = getLiveRun(runId);
  // Read even from the start: a run whose log expired says so (410) before a stream opens.
  const last = local ? local.publishedSeq : await lastPersistedSeq(runId);
  if (after > last) {
    throw new AppError("BAD_REQUEST", `Last-Event-ID ${after} is past the last event of run ${clientRunId} (${last}); resume from an id its stream sent`, { field: "Last-Event-ID" });
  }
}

/** The records after `cursor`, up to and including a terminal event. */
function admit(records: EventRecord[], cursor: number): { batch: EventRecord[]; ended: boolean } {
  const batch: EventRecord[] = [];
  for (const rec of records) {
    if (rec.seq <= cursor) continue;
    cursor = rec.seq;
    batch.push(rec);
    if (TERMINAL_EVENT_TYPES.has(rec.type)) return { batch, ended: true };
  }
  return { batch, ended: false };
}

/** followRunBatches, one event at a time, for consumers that handle events individually. */
export async function* followRun(opts: { runId: string; after: number; signal: AbortSignal }): AsyncGenerator<EventRecord> {
  for await (const batch of followRunBatches(opts)) yield* batch;
}
