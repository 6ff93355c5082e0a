import "server-only";
import { onEventsDurable, persistEvent } from "./event-log";
import type { EventRecord } from "../kernel/runs";

// The events of the runs this instance executes, kept in memory for the run's lifetime:
// a subscriber on this instance gets everything after its cursor from here, with no
// database read. Subscribers see an event only once it is durable (its group commit is done),
// so an event a client received is in the log, with that id, even if this process dies the next
// instant: recovery appends after the log's end, never over what someone saw.

type Listener = (rec: EventRecord) => void;

export class LiveRun {
  readonly events: EventRecord[] = [];
  private readonly listeners = new Set<Listener>();
  /** The highest sequence number subscribers have been given (everything up to it is durable). */
  private published = 0;

  /** The event written without waiting for the gathering window: this execution's first (see preload); 0 for none. */
  private hurriedSeq = 1;

  constructor(
    readonly runId: string,
    readonly attempt: number,
  ) {}

  /**
   * Events already durable that come before what this execution appends: the log so far of a run
   * taken over, or the opening events its accepting statement wrote. The execution's first own
   * event is written without waiting for the gathering window unless `hurryNext` is false.
   */
  preload(records: readonly EventRecord[], { hurryNext = true }: { hurryNext?: boolean } = {}): void {
    for (const rec of records) this.events.push(rec);
    this.published = this.events.length;
    this.hurriedSeq = hurryNext ? this.events.length + 1 : 0;
  }

  get lastSeq(): number {
    return this.events.length;
  }

  /** The last sequence number subscribers have been given. */
  get publishedSeq(): number {
    return this.published;
  }

  /** Assigns the next sequence number and queues the event for the group commit; subscribers get it once it is durable. */
  append(type: string, json: string): EventRecord {
    const rec = this.reserve(type, json);
    persistEvent(this.runId, rec, this.attempt, rec.seq === this.hurriedSeq);
    return rec;
  }

  /** Assigns the next sequence number without queueing it: the caller writes it (the run's closing statement) and then publishes it. */
  reserve(type: string, json: string): EventRecord {
    const rec: EventRecord = { seq: this.events.length + 1, type, json };
    this.events.push(rec);
    return rec;
  }

  /** Hands subscribers every event up to `seq`, which is now durable. */
  publish(seq: number): void {
    const upTo = Math.min(seq, this.events.length);
    for (; this.published < upTo; this.published++) {
      const rec = this.events[this.published]!;
      for (const l of this.listeners) l(rec);
    }
  }

  /** Durable events after `after`, then every new one as it becomes durable, until the returned function is called. */
  subscribe(after: number, listener: Listener): () => void {
    for (let i = after; i < this.published; i++) listener(this.events[i]!);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Ends the run here: subscribers still listening (its terminal event was never published) get END_OF_RUN and close. */
  end(): void {
    for (const l of this.listeners) l(END_OF_RUN);
    this.listeners.clear();
  }
}

/** Given to subscribers when the run left this instance without a published terminal event. */
export const END_OF_RUN: EventRecord = Object.freeze({ seq: Number.MAX_SAFE_INTEGER, type: "", json: "" });

const live = new Map<string, LiveRun>();

onEventsDurable((runId, seq) => live.get(runId)?.publish(seq));

export function openLiveRun(runId: string, attempt = 1): LiveRun {
  const run = new LiveRun(runId, attempt);
  live.set(runId, run);
  return run;
}

export function getLiveRun(runId: string): LiveRun | undefined {
  return live.get(runId);
}

export function closeLiveRun(runId: string): void {
  live.get(runId)?.end();
  live.delete(runId);
}

export function liveRunCount(): number {
  return live.size;
}
