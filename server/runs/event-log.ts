import "server-only";
import { logger } from "../logger";
import { metrics } from "../telemetry/metrics";
import { findLastPersistedSeq, insertEventBatches, notifyDurable, selectEventBatches, type EventBatchInsert } from "./repository/run-events";
import { reachingDatabase } from "./database-reach";
import { archivedLastSeq, readArchivedLog } from "../run-archive/archived-log";
import type { EventRecord } from "../kernel/runs";

// Group commit for run events: appends from every run on this instance queue up and one
// INSERT writes them while the next batch gathers, as one row per run holding that run's
// consecutive events (run_event_batches). Once it has committed, other instances are notified
// (notifyDurable, in a transaction of its own), so their subscribers read what is durable. A
// failed write keeps its rows, unchanged, and retries them: nothing is dropped or written twice.
// Only open runs take events: a run closed elsewhere has its events dropped and its executor told.

type Pending = { runId: string; rec: EventRecord; at: number; attempt: number };
type Row = EventBatchInsert;

/** A run's queued events become one row per stretch of consecutive sequence numbers. */
function toRows(pending: Pending[]): Row[] {
  const rows: Row[] = [];
  const open = new Map<string, Row>();
  for (const { runId, rec, at, attempt } of pending) {
    const row = open.get(runId);
    if (row && row.lastSeq + 1 === rec.seq && row.attempt === attempt) {
      row.lastSeq = rec.seq;
      row.types.push(rec.type);
      row.events.push(rec.json);
    } else {
      const next = { runId, firstSeq: rec.seq, lastSeq: rec.seq, types: [rec.type], events: [rec.json], at, attempt };
      rows.push(next);
      open.set(runId, next);
    }
  }
  return rows;
}

let queue: Pending[] = [];
// `<runs.id>:<last seq>` of events other statements made durable, sent with the next write.
let notices: string[] = [];
let durableListener: (runId: string, lastSeq: number) => void = () => {};
let closedListener: (runId: string) => void = () => {};
// Rows whose write failed, retried as they were (their first_seq makes the retry idempotent).
let unwritten: Row[] = [];
let waiters: (() => void)[] = [];
let inFlight: Promise<void> | null = null;
let retryDelayMs = 0;

// A write starts at most every gather window while events trickle in (models streaming at their
// own pace across many runs), so one commit carries every run's recent events: a commit (WAL
// flush, NOTIFY) per handful of events was most of PostgreSQL's work per paced run. Each commit
// writes a row per run that had events, so the window widens with the rows the last write held:
// a few streaming runs get their tokens every GATHER_MIN_MS, a few hundred every GATHER_MAX_MS
// (still smooth to read), in fewer rows. Subscribers on this instance read events from
// memory, unaffected; whoever waits for durability (flushEvents), an execution's first event and a
// queue this long start the write at once, or right after the write in flight.
const GATHER_MIN_MS = 10;
const GATHER_MAX_MS = 50;
const GATHER_MS_PER_ROW = 1;
const WRITE_NOW_AT = 2_000;
let gatherMs = GATHER_MIN_MS;
let lastWriteAt = Number.NEGATIVE_INFINITY;
let timer: NodeJS.Timeout | null = null;
let immediate = false;
let urgentQueued = false;

function fire(): void {
  timer = null;
  immediate = false;
  void drain();
}

/** Starts the next write when due: after a failed write's back-off, else the gathering window. */
function schedule(urgent = false): void {
  if (urgent) urgentQueued = true;
  if (inFlight || immediate) return; // drain schedules again when the write in flight ends
  const gather = urgentQueued || queue.length >= WRITE_NOW_AT ? 0 : lastWriteAt + gatherMs - performance.now();
  const wait = retryDelayMs > 0 ? retryDelayMs : gather;
  if (wait > 0) {
    timer ??= setTimeout(fire, wait);
    return;
  }
  if (timer) clearTimeout(timer);
  timer = null;
  immediate = true;
  setImmediate(fire);
}

async function drain(): Promise<void> {
  if (inFlight || (queue.length === 0 && unwritten.length === 0 && notices.length === 0)) return;
  const rows = unwritten.concat(toRows(queue));
  const sent = notices;
  notices = [];
  const done = waiters;
  lastWriteAt = performance.now();
  gatherMs = Math.min(GATHER_MAX_MS, Math.max(GATHER_MIN_MS, rows.length * GATHER_MS_PER_ROW));
  urgentQueued = false;
  queue = [];
  unwritten = [];
  waiters = [];
  const writeStarted = performance.now();
  inFlight = reachingDatabase(() => insertEventBatches(rows)).then(
    ({ closedRunIds, notices: written }) => {
      metrics.eventLogWrite.observe((performance.now() - writeStarted) / 1000);
      announce(sent.concat(written));
      retryDelayMs = 0;
      const closed = new Set(closedRunIds);
      for (const runId of closed) {
        // Its events were refused, and so will the rest be: nobody sees them.
        discardUnwrittenEvents(runId);
        try {
          closedListener(runId);
        } catch (err) {
          logger.error({ err, runId }, "stopping a run closed elsewhere failed");
        }
      }
      for (const row of rows) {
        if (closed.has(row.runId)) continue;
        try {
          durableListener(row.runId, row.lastSeq);
        } catch (err) {
          logger.error({ err, runId: row.runId }, "publishing durable run events failed");
        }
      }
      for (const resolve of done) resolve();
    },
    (err: unknown) => {
      retryDelayMs = Math.min(5_000, Math.max(50, retryDelayMs * 2));
      logger.error({ err, rows: rows.length, retryInMs: retryDelayMs }, "could not persist run events; retrying");
      unwritten = rows.concat(unwritten);
      notices = sent.concat(notices);
      waiters = done.concat(waiters);
      if (done.length > 0) urgentQueued = true;
    },
  );
  await inFlight;
  inFlight = null;
  if (queue.length > 0 || unwritten.length > 0 || notices.length > 0) schedule(waiters.length > 0);
}

/**
 * Notifies other instances, beside the next write rather than before it: a failed notification
 * is logged, and the followers it would have woken find the events at their next re-read.
 */
function announce(list: string[]): void {
  if (list.length === 0) return;
  notifyDurable(list).catch((err: unknown) => logger.warn({ err, runs: list.length }, "could not notify other instances of durable events; their followers re-read"));
}

/** Tells `listener` after each group commit which events of a run it made durable (rows in order, per run). */
export function onEventsDurable(listener: (runId: string, lastSeq: number) => void): void {
  durableListener = listener;
}

/** Tells `listener` of a run whose events the log refused: it was closed elsewhere (recovery on another instance). */
export function onRunClosedElsewhere(listener: (runId: string) => void): void {
  closedListener = listener;
}

/** Queues one event for persistence, written only while `attempt` is the run's execution. */
export function persistEvent(runId: string, rec: EventRecord, attempt: number, first = rec.seq === 1): void {
  queue.push({ runId, rec, at: Date.now(), attempt });
  // Followers see an event once it is durable: an execution's first event does not wait for the
  // gathering window, so a client's time to first event is one commit, not a window and a commit.
  schedule(first);
}

/**
 * Tells other instances, with the next write, that a run's log is durable up to `lastSeq`: for
 * events another statement wrote (the statement that closes a run), which then need not notify
 * itself and so does not queue its commit behind every other notifying commit.
 */
export function announceDurable(runId: string, lastSeq: number): void {
  notices.push(`${runId}:${lastSeq}`);
  schedule();
}

/** Drops a run's events that are not written yet (never published to anyone): its executor gave up on the database. */
export function discardUnwrittenEvents(runId: string): void {
  queue = queue.filter((p) => p.runId !== runId);
  unwritten = unwritten.filter((r) => r.runId !== runId);
}

/** Resolves once every event queued so far is durable. */
export function flushEvents(): Promise<void> {
  if (queue.length === 0 && unwritten.length === 0 && !inFlight) return Promise.resolve();
  return new Promise((resolve) => {
    if (queue.length === 0 && unwritten.length === 0) {
      // Only the in-flight batch is outstanding; it settles before the next drain.
      void inFlight?.then(() => {
        if (queue.length === 0) return resolve();
        waiters.push(resolve);
        schedule(true);
      });
      return;
    }
    waiters.push(resolve);
    schedule(true);
  });
}

/**
 * Up to `limit` persisted events after `after`, in order: from the hot rows, else (a finished run
 * whose log was archived) from its archive, the same bytes. A log past retention is AppError GONE.
 * `ended`: the run had ended (a read replica may answer).
 */
export async function readEvents(opts: { runId: string; after: number; limit: number; ended?: boolean }): Promise<EventRecord[]> {
  return (await readEventPage(opts)).records;
}

/**
 * readEvents, saying whether the page came from the hot rows. `hot`: an earlier page did, so an
 * empty one means caught up (a log is archived days after its run ended, not while it is followed)
 * and a caught-up follower's re-reads skip the archive's lookup.
 */
export async function readEventPage({ runId, after, limit, ended = false, hot = false }: { runId: string; after: number; limit: number; ended?: boolean; hot?: boolean }): Promise<{ records: EventRecord[]; hot: boolean }> {
  const rows = await selectEventBatches({ runId, after, limit, ended });
  if (rows.length === 0) return { records: hot ? [] : await readArchivedEvents({ runId, after, limit }), hot };
  const out: EventRecord[] = [];
  for (const row of rows) {
    const types = row.types.split(" ");
    const events = row.events.split("\n");
    for (let i = 0; i < events.length && out.length < limit; i++) {
      const seq = row.firstSeq + i;
      if (seq > after) out.push({ seq, type: types[i]!, json: events[i]! });
    }
  }
  return { records: out, hot: true };
}

async function readArchivedEvents({ runId, after, limit }: { runId: string; after: number; limit: number }): Promise<EventRecord[]> {
  const archived = await readArchivedLog(runId);
  if (!archived) return [];
  const out: EventRecord[] = [];
  for (const line of archived) {
    if (out.length === limit) break;
    if (line.seq > after) out.push({ seq: line.seq, type: line.type, json: line.event });
  }
  return out;
}

/** The run's last persisted sequence number (0: none yet); a log past retention is AppError GONE. */
export async function lastPersistedSeq(runId: string): Promise<number> {
  const hot = await findLastPersistedSeq({ runId });
  return hot > 0 ? hot : ((await archivedLastSeq(runId)) ?? 0);
}
