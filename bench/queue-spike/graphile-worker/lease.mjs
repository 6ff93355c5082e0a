// The smallest crash recovery for graphile-worker, which has none of its own (a job locked by a
// dead process stays locked for 4 hours): a lease per instance in a table of ours, kept by a
// heartbeat, and a reaper that any instance runs, unlocking a silent instance's jobs through the
// engine's public force_unlock_workers.
import { clearInterval, setInterval } from "node:timers";

// Each instance refreshes its row every HEARTBEAT_MS; any instance unlocks the jobs of an instance
// silent for LEASE_MS, looking every REAP_EVERY_MS.
export const HEARTBEAT_MS = 500;
export const LEASE_MS = 2_000;
export const REAP_EVERY_MS = 250;
// A pool may lock jobs before its lease row exists (with localQueue it fetches as it is created,
// before the startWorker hook): a process killed in that instant leaves locks under an id no
// heartbeat names. A slower sweep releases those; it reads the jobs table, which has no index for it.
export const ORPHAN_SWEEP_MS = 5_000;

export async function installLeaseSchema(pool) {
  await pool.query(`
    create table spike_instances (id text primary key, heartbeat_at timestamptz not null);
    -- Unlocks the jobs (and named queues) of every instance whose heartbeat is older than the
    -- lease, forgets those instances, and wakes the idle workers (graphile-worker's own channel)
    -- so a survivor takes the jobs at once rather than at its next poll.
    create function spike_reap(p_lease interval) returns int language plpgsql as $$
    declare dead text[];
    begin
      with gone as (
        delete from spike_instances where heartbeat_at < clock_timestamp() - p_lease returning id
      ) select array_agg(id) into dead from gone;
      if dead is null then return 0; end if;
      perform graphile_worker.force_unlock_workers(dead);
      perform pg_notify('jobs:insert', '');
      return cardinality(dead);
    end $$;
    create function spike_reap_orphans(p_lease interval) returns int language plpgsql as $$
    declare orphans text[];
    begin
      select array_agg(distinct locked_by) into orphans
        from graphile_worker._private_jobs
        where locked_by is not null and locked_at < clock_timestamp() - p_lease
          and locked_by not in (select id from spike_instances);
      if orphans is null then return 0; end if;
      perform graphile_worker.force_unlock_workers(orphans);
      perform pg_notify('jobs:insert', '');
      return cardinality(orphans);
    end $$;
  `);
}

/**
 * Our lease for one instance, as a graphile-worker plugin: before a worker of the pool fetches its
 * first job (the `startWorker` hook, which the engine awaits) the pool's lock id is registered, and
 * from then on kept alive by a heartbeat; a reaper unlocks the jobs of other instances that went
 * silent. Any live instance may reap; two reaping the same instance is harmless.
 */
export function makeLease(pool) {
  let registered = null;
  let lockId = null;
  let markRegistered;
  const whenRegistered = new Promise((resolve) => (markRegistered = resolve));
  const timers = [];
  const beat = () => pool.query("insert into spike_instances (id, heartbeat_at) values ($1, clock_timestamp()) on conflict (id) do update set heartbeat_at = excluded.heartbeat_at", [lockId]);
  const reap = () => pool.query("select spike_reap($1::interval)", [`${LEASE_MS} milliseconds`]);
  const sweepOrphans = () => pool.query("select spike_reap_orphans($1::interval)", [`${LEASE_MS} milliseconds`]);
  const register = (id) => {
    registered ??= (async () => {
      lockId = id;
      await beat();
      timers.push(
        setInterval(() => beat().catch(() => {}), HEARTBEAT_MS),
        setInterval(() => reap().catch(() => {}), REAP_EVERY_MS),
        setInterval(() => sweepOrphans().catch(() => {}), ORPHAN_SWEEP_MS),
      );
      markRegistered(id);
    })();
    return registered;
  };
  return {
    plugin: {
      name: "SpikeLeasePlugin",
      version: "0.0.0",
      worker: { hooks: { startWorker: (_ctx, event) => register(event.worker.workerPool.id) } },
    },
    /** Resolves with the pool's lock id once its lease is registered. */
    whenRegistered,
    async stop() {
      timers.forEach(clearInterval);
      if (lockId) await pool.query("delete from spike_instances where id = $1", [lockId]).catch(() => {});
    },
  };
}
