import "server-only";
import { readEvents, RUN_EVENTS_CHANNEL } from "./event-log";
import { getLiveRun } from "./live-runs";
import { listen } from "./notifications";
import { TERMINAL_EVENT_TYPES, type EventRecord } from "./types";

const PAGE = 500;

/**
 * Every event of a run after `after`, in order, without gap or duplicate, then the live
 * ones until the run ends or `signal` aborts. Served from memory when this instance runs
 * the run; otherwise from the event log, woken by the other instance's notifications.
 */
export async function* followRun(opts: { runId: string; after: number; signal: AbortSignal }): AsyncGenerator<EventRecord> {
  const { runId, signal } = opts;
  let cursor = opts.after;
  const pending: EventRecord[] = [];
  let wake: (() => void) | null = null;
  const poke = () => {
    wake?.();
    wake = null;
  };
  const onAbort = () => poke();
  signal.addEventListener("abort", onAbort);

  let stopLive: (() => void) | null = null;
  let remoteHigh = 0;
  let stopRemote: (() => void) | null = null;
  try {
    const local = getLiveRun(runId);
    if (local) {
      stopLive = local.subscribe(cursor, (rec) => {
        pending.push(rec);
        poke();
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
        while (pending.length > 0) {
          const rec = pending.shift()!;
          if (rec.seq <= cursor) continue;
          cursor = rec.seq;
          yield rec;
          if (TERMINAL_EVENT_TYPES.has(rec.type)) return;
        }
      } else if (remoteHigh > cursor) {
        remoteHigh = 0;
        for (;;) {
          const page = await readEvents({ runId, after: cursor, limit: PAGE });
          for (const rec of page) {
            cursor = rec.seq;
            yield rec;
            if (TERMINAL_EVENT_TYPES.has(rec.type)) return;
          }
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
    signal.removeEventListener("abort", onAbort);
    stopLive?.();
    stopRemote?.();
  }
}
