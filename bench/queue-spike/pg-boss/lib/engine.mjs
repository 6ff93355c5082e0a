// How the spike configures pg-boss: the fastest sane settings for our case, in one place so the
// parent and the child processes (recovery-child.mjs) run the same engine.
export const RUNS_QUEUE = "runs";
export const THREADS_QUEUE = "threads";
export const RECOVERY_QUEUE = "recovery";
export const PARKED_QUEUE = "parked";
export const SERVERLESS_QUEUE = "serverless";

/** The lease: a worker touches its job every HEARTBEAT/2 s; a job untouched for HEARTBEAT s is retried. 10 is pg-boss's minimum. */
export const HEARTBEAT_SECONDS = 10;

export function bossOptions(url, extra = {}) {
  return {
    connectionString: url,
    max: Number(process.env.SPIKE_BOSS_POOL ?? 10),
    // NOTIFY on insert wakes idle workers at once; polling stays as the floor.
    useListenNotify: true,
    // The monitor pass (expiry, lost heartbeats, queue stats) every second, pg-boss's minimum:
    // it bounds how long a job whose heartbeat stopped stays active.
    superviseIntervalSeconds: 1,
    monitorIntervalSeconds: 1,
    schedule: false,
    ...extra,
  };
}

/** Queue settings for a run: its lease is the heartbeat; expireInSeconds only bounds a run's total length. */
export const runQueueOptions = {
  notify: true,
  heartbeatSeconds: HEARTBEAT_SECONDS,
  expireInSeconds: 3600,
  retryLimit: 10,
  retryDelay: 0,
};

export async function createQueues(boss) {
  await boss.createQueue(RUNS_QUEUE, runQueueOptions);
  await boss.createQueue(RECOVERY_QUEUE, runQueueOptions);
  await boss.createQueue(PARKED_QUEUE, runQueueOptions);
  await boss.createQueue(SERVERLESS_QUEUE, runQueueOptions);
  // One run at a time per thread, in order, threads in parallel (the "enqueue" busy-thread policy).
  await boss.createQueue(THREADS_QUEUE, { ...runQueueOptions, policy: "key_strict_fifo" });
}

/** pg-boss's `db` option for one of our connections: its statements then run in our transaction. */
export const onClient = (client) => ({ executeSql: (text, values) => client.query(text, values) });

/**
 * Accepting a run in ONE statement, as Dispatch's dispatch_accept_run is: our insert and the job's,
 * and the NOTIFY that wakes workers, in a SQL function. It writes pg-boss's job table directly (the
 * columns its own send() fills from the queue's defaults), so it is coupled to pg-boss's internal
 * schema: every pg-boss upgrade would have to be checked against it.
 */
export const ACCEPT_FUNCTION = `
  create function spike_accept_run(p_run_id uuid, p_thread_id text, p_queue text) returns void
  language plpgsql as $$
  begin
    insert into runs (id, thread_id) values (p_run_id, p_thread_id);
    insert into pgboss.job (id, name, data, singleton_key, expire_seconds, deletion_seconds, keep_until,
                            retry_limit, retry_delay, retry_backoff, retry_delay_max, policy, dead_letter,
                            heartbeat_seconds)
    select gen_random_uuid(), q.name, jsonb_build_object('runId', p_run_id), p_thread_id, q.expire_seconds,
           q.deletion_seconds, now() + q.retention_seconds * interval '1s', q.retry_limit, q.retry_delay,
           q.retry_backoff, q.retry_delay_max, q.policy, q.dead_letter, q.heartbeat_seconds
      from pgboss.queue q where q.name = p_queue;
    if not found then raise exception 'no queue %', p_queue; end if;
    -- the channel pg-boss listens on for schema "pgboss" (plans.notifyChannelSql)
    perform pg_notify('pgboss_' || left(encode(sha224('pgboss'::bytea), 'hex'), 24), p_queue);
  end $$`;
