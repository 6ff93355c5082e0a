import "server-only";
import { listen } from "../repositories/notifications";
import { RUN_EVENTS_CHANNEL } from "../repositories/run-events";
import { readEvents } from "./event-log";
import { getLiveRun } from "./live-runs";
import { TERMINAL_EVENT_TYPES, type EventRecord } from "./types";

const PAGE = 500;

/**
 * Every event of a run after `after`, in order, without gap or duplicate, then the live
 * ones until the run ends or `signal` aborts, in batches: whatever arrived since the last
 * batch was taken. Served from memory when this instance runs the run; otherwise from the
 * event log, woken by the other instance's notifications.
 *
 * Live events are handed over once per turn of the event loop (setImmediate), so a model
 * that streams many tokens in one network read costs one wake-up and one write per
 * subscriber rather than one per token.
 */
export async function* followRunBatches(opts: { runId: string; after: number; signal: AbortSignal }): AsyncGenerator<EventRecord[]> {
  const { runId, signal } = opts;
  let cursor = opts.after;
  let pending: EventRecord[] = [];
  let wake: (() => void) | null = null;
  let wakeScheduled = false;
  const poke = () => {
    wake?.();
    wake = null;
  };
  const pokeSoon = () => {
    if (wakeScheduled) return;
    wakeScheduled = true;
    setImmediate(() => {
      wakeScheduled = false;
      poke();
    });
  };
  signal.addEventListener("abort", poke);

  let stopLive: (() => void) | null = null;
  let remoteHigh = 0;
  let stopRemote: (() => void) | null = null;
  try {
    const local = getLiveRun(runId);
    if (local) {
      stopLive = local.subscribe(cursor, (rec) => {
        pending.push(rec);
        pokeSoon();
      });
    } else {
      // Listen before reading, so an event committed in between still wakes us.
      stopRemote = await listen(RUN_EVENTS_CHANNEL, (payload) => {
        const [id, seq] = payload.split(":");
        if (id === runId) {
          remoteHigh = Math.max(remoteHigh, Number(seq));
          poke();
        }
      });
      remoteHigh = Number.MAX_SAFE_INTEGER; // read once unconditionally
    }

    while (!signal.aborted) {
      if (local) {
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
      } else if (remoteHigh > cursor) {
        remoteHigh = 0;
        for (;;) {
          const page = await readEvents({ runId, after: cursor, limit: PAGE });
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
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (pending.length > 0 || signal.aborted || (!local && remoteHigh > cursor)) poke();
      });
    }
  } finally {
    signal.removeEventListener("abort", poke);
    stopLive?.();
    stopRemote?.();
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
