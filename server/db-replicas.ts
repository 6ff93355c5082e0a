import "server-only";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { logger } from "./logger";

// Read replicas (docs/scaling.md "Read replicas"). Only server/db.ts imports this file; repositories
// reach it through db.ts's readPool. A replica serves a read when it is up, no further behind the
// primary than maxLagMs, and has replayed what the read must see: the caller's own recent writes,
// or an explicit WAL position. Otherwise the read goes to the primary, which is always right.

export type ReplicaSettings = {
  urls: string[];
  maxLagMs: number;
  waitMs: number;
  checkMs: number;
  /** The primary's pool: where positions are sampled and every read that a replica cannot take goes. */
  primary: () => pg.Pool;
  /** Opens a replica's pool, with the primary's timeouts. */
  openPool: (url: string) => pg.Pool;
};

/**
 * What a read must see: `user`, that user's writes noted on this instance (noteWrite); `lsn`, every
 * write up to that primary WAL position; `now`, every write committed before the read began.
 * Absent: only the bounded lag.
 */
export type ReadAfter = { user: string } | { lsn: string } | "now";

/** What repositories query through: a pool's query, with a fallback to the primary. */
export type ReadDb = { query<R extends pg.QueryResultRow = pg.QueryResultRow>(config: pg.QueryConfig | string, values?: unknown[]): Promise<pg.QueryResult<R>> };

type Replica = {
  /** host:port/database: logged, never the URL (it holds the password). */
  name: string;
  pool: pg.Pool;
  healthy: boolean;
  /** Its replay position at the last check (or wait). */
  replayed: bigint;
  /** The newest moment (performance.now) whose writes it has all replayed; -Infinity when unknown. */
  caughtUpTo: number;
  /** Reads it answered. */
  reads: number;
};

/** A replica as the metrics show it: up (read), how far behind it is known to be, and the reads it answered. */
export type ReplicaStats = { name: string; up: boolean; lagSeconds: number | null; reads: number };

/** A primary position sampled at `at`: every write committed before `at` is at or before `lsn`. */
type Sample = { at: number; lsn: bigint };

const POLL_MS = 10;

/** "16/B374D848" as a number that compares like the position. */
export function parseLsn(text: string): bigint {
  const [high, low] = text.split("/");
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

function replicaName(url: string): string {
  try {
    const u = new URL(url);
    return `${u.searchParams.get("host") ?? u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return "replica";
  }
}

/** The replicas of one primary: their health and positions, and where each read goes. */
class ReplicaSet {
  private readonly replicas: Replica[];
  private readonly samples: Sample[] = [];
  // Users whose writes this instance made lately, and when (performance.now, after the commit).
  private readonly writes = new Map<string, number>();
  private next = 0;
  /** Reads that went to the primary: no replica was current, none had what the read must see, or the replica failed it. */
  private primaryReads = 0;
  private checking: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout;
  private readonly every: number;

  constructor(private readonly settings: ReplicaSettings) {
    this.replicas = settings.urls.map((url) => ({ name: replicaName(url), pool: settings.openPool(url), healthy: false, replayed: 0n, caughtUpTo: -Infinity, reads: 0 }));
    // A replica is looked at more often than its lag may grow, or it would never count as current.
    this.every = Math.max(20, Math.min(settings.checkMs, Math.floor(settings.maxLagMs / 2)));
    this.timer = setInterval(() => void this.check(), this.every);
    this.timer.unref();
    void this.check();
  }

  /** What repositories query through for reads that `after` describes. */
  readDb(after?: ReadAfter): ReadDb {
    return { query: (config, values) => this.read(after, config, values) };
  }

  noteWrite(user: string): void {
    this.writes.set(user, performance.now());
  }

  stats(): { replicas: ReplicaStats[]; primaryReads: number } {
    const now = performance.now();
    const replicas = this.replicas.map((r) => ({ name: r.name, up: r.healthy, lagSeconds: r.caughtUpTo === -Infinity ? null : (now - r.caughtUpTo) / 1000, reads: r.reads }));
    return { replicas, primaryReads: this.primaryReads };
  }

  /** Samples the primary's position, then each replica's: who has reached which moment. */
  check(): Promise<void> {
    this.checking ??= (async () => {
      const at = performance.now();
      const sample = await this.primaryPosition().then(
        (lsn) => ({ at, lsn }),
        () => null,
      );
      if (sample) this.samples.push(sample);
      this.forgetOld();
      await Promise.all(this.replicas.map((r) => this.checkReplica(r, sample !== null)));
    })().finally(() => (this.checking = null));
    return this.checking;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.replicas.map((r) => r.pool.end().catch(() => undefined)));
  }

  /** Keeps only the samples a replica within the lag bound could still be matched against, and the writes it could still miss. */
  private forgetOld(): void {
    const horizon = performance.now() - this.settings.maxLagMs;
    while (this.samples.length > 1 && this.samples[1]!.at < horizon - 2 * this.every) this.samples.shift();
    for (const [user, when] of this.writes) if (when < horizon) this.writes.delete(user);
  }

  private setHealth(replica: Replica, healthy: boolean, reason: string): void {
    if (replica.healthy === healthy) return;
    replica.healthy = healthy;
    if (healthy) logger.info({ replica: replica.name }, "database replica in use");
    else logger.warn({ replica: replica.name, reason }, "database replica not used: reads go to the primary");
  }

  private async checkReplica(replica: Replica, primaryKnown: boolean): Promise<void> {
    try {
      const lsn = await replayPosition(replica);
      if (lsn === null) return this.setHealth(replica, false, "not a standby");
      // The newest sample it has reached: everything committed before that sample was taken.
      const reached = this.samples.filter((s) => s.lsn <= lsn).at(-1);
      if (reached) replica.caughtUpTo = Math.max(replica.caughtUpTo, reached.at);
      // With the primary away its lag is unknown: it keeps serving what it was serving.
      if (primaryKnown && performance.now() - replica.caughtUpTo > this.settings.maxLagMs) return this.setHealth(replica, false, `more than ${this.settings.maxLagMs} ms behind`);
      this.setHealth(replica, true, "");
    } catch (err) {
      this.setHealth(replica, false, (err as Error).message);
    }
  }

  private async primaryPosition(): Promise<bigint> {
    const { rows } = await this.settings.primary().query<{ lsn: string }>({ name: "dispatch-wal-position", text: "select pg_current_wal_lsn()::text as lsn" });
    return parseLsn(rows[0]!.lsn);
  }

  /** Waits up to waitMs for the replica to replay `lsn`. */
  private async reaches(replica: Replica, lsn: bigint): Promise<boolean> {
    const deadline = performance.now() + this.settings.waitMs;
    while (replica.replayed < lsn) {
      await replayPosition(replica);
      if (replica.replayed >= lsn) break;
      if (performance.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return true;
  }

  /** The position a read must find replayed, or null when the lag bound is enough. */
  private async fenceFor(replica: Replica, after: ReadAfter | undefined): Promise<bigint | null> {
    if (after === undefined) return null;
    if (after === "now") return this.primaryPosition();
    if ("lsn" in after) return parseLsn(after.lsn);
    const wrote = this.writes.get(after.user);
    return wrote === undefined || replica.caughtUpTo >= wrote ? null : this.primaryPosition();
  }

  /** A current replica that has what the read must see, or null for the primary. */
  private async pick(after: ReadAfter | undefined): Promise<Replica | null> {
    const now = performance.now();
    const current = this.replicas.filter((r) => r.healthy && now - r.caughtUpTo <= this.settings.maxLagMs);
    if (current.length === 0) return null;
    const replica = current[this.next++ % current.length]!;
    try {
      const fence = await this.fenceFor(replica, after);
      return fence === null || (await this.reaches(replica, fence)) ? replica : null;
    } catch (err) {
      // The primary's position unknown (it answers the read, or reports its own outage), or the replica gone.
      if (!(await answers(replica))) this.setHealth(replica, false, (err as Error).message);
      return null;
    }
  }

  /** Runs a read on a replica when one may take it, else (or when it fails there) on the primary. */
  private async read<R extends pg.QueryResultRow>(after: ReadAfter | undefined, config: pg.QueryConfig | string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    const replica = await this.pick(after);
    if (replica) {
      try {
        const result = await replica.pool.query<R>(config, values);
        replica.reads++;
        return result;
      } catch (err) {
        // A replica may also cancel a read that conflicts with what it replays: the primary answers it.
        logger.warn({ replica: replica.name, code: (err as { code?: string }).code, reason: (err as Error).message }, "a read failed on a database replica: retried on the primary");
        if (!(await answers(replica))) this.setHealth(replica, false, (err as Error).message);
      }
    }
    this.primaryReads++;
    return this.settings.primary().query<R>(config, values);
  }
}

/** The replica's replay position now (remembered on it), or null when it is not a standby. */
async function replayPosition(replica: Replica): Promise<bigint | null> {
  const { rows } = await replica.pool.query<{ lsn: string | null }>("select pg_last_wal_replay_lsn()::text as lsn");
  const lsn = rows[0]?.lsn;
  if (!lsn) return null;
  replica.replayed = parseLsn(lsn);
  return replica.replayed;
}

async function answers(replica: Replica): Promise<boolean> {
  return replica.pool.query("select 1").then(
    () => true,
    () => false,
  );
}

export function createReplicaSet(settings: ReplicaSettings): ReplicaSet {
  return new ReplicaSet(settings);
}

export type { ReplicaSet };
