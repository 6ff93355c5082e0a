import "server-only";
import { persistEvent } from "./event-log";
import type { EventRecord } from "./types";

// The events of the runs this instance executes, kept in memory for the run's lifetime:
// a subscriber on this instance gets everything after its cursor from here, with no
// database read and no gap between what is persisted and what is still queued.

type Listener = (rec: EventRecord) => void;

export class LiveRun {
  readonly events: EventRecord[] = [];
  private readonly listeners = new Set<Listener>();
  ended = false;

  constructor(readonly runId: string) {}

  get lastSeq(): number {
    return this.events.length;
  }

  /** Assigns the next sequence number, persists (batched) and fans the event out. */
  append(type: string, json: string): EventRecord {
    const rec: EventRecord = { seq: this.events.length + 1, type, json };
    this.events.push(rec);
    persistEvent(this.runId, rec);
    for (const l of this.listeners) l(rec);
    return rec;
  }

  /** Events after `after`, then every new one, until the returned function is called. */
  subscribe(after: number, listener: Listener): () => void {
    for (let i = after; i < this.events.length; i++) listener(this.events[i]!);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

const live = new Map<string, LiveRun>();

export function openLiveRun(runId: string): LiveRun {
  const run = new LiveRun(runId);
  live.set(runId, run);
  return run;
}

export function getLiveRun(runId: string): LiveRun | undefined {
  return live.get(runId);
}

export function closeLiveRun(runId: string): void {
  const run = live.get(runId);
  if (run) run.ended = true;
  live.delete(runId);
}

export function liveRunCount(): number {
  return live.size;
}
