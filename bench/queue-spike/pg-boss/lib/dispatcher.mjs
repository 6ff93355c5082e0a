// The alternative to pg-boss's work(): one claim loop per instance, on pg-boss's fetch/complete/
// touch API. work() runs `localConcurrency` independent loops that each fetch one job and are all
// woken by every NOTIFY, so an idle instance answers one new job with one fetch per loop. Here an
// instance fetches as many jobs as it has free slots in one statement, completes finished runs in
// one statement, touches all its running jobs in one statement per half-lease, and polls once per
// interval, not once per slot.
import pg from "pg";
import { clearInterval, setInterval } from "node:timers";
import { HEARTBEAT_SECONDS } from "./engine.mjs";

export async function startDispatcher({ boss, url, queue, capacity, handler, pollMs = 500 }) {
  const running = new Map(); // job id → { id, retryCount }
  const finished = [];
  let pumping = false;
  let again = false;
  let stopped = false;

  async function pump() {
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        if (finished.length) await boss.complete(queue, finished.splice(0));
        const free = capacity - running.size;
        if (free === 0 || stopped) break;
        const jobs = await boss.fetch(queue, { batchSize: free });
        for (const job of jobs ?? []) start(job);
        // A full batch means more may be waiting.
        if (jobs?.length === free) again = true;
      } while (again);
    } catch (e) {
      console.error(`[dispatcher ${queue}]`, e.message);
    } finally {
      pumping = false;
    }
  }

  function start(job) {
    const attempt = { id: job.id, retryCount: job.retryCount };
    running.set(job.id, attempt);
    Promise.resolve(handler(job))
      .catch((e) => console.error(`[dispatcher ${queue}] run failed`, e.message))
      .finally(() => {
        running.delete(job.id);
        finished.push(attempt);
        void pump();
      });
  }

  // Woken by the NOTIFY pg-boss's send() emits for a notify queue (the channel of schema "pgboss").
  const listener = new pg.Client({ connectionString: url });
  await listener.connect();
  const { rows } = await listener.query("select 'pgboss_' || left(encode(sha224('pgboss'::bytea), 'hex'), 24) as channel");
  listener.on("notification", (n) => n.payload === queue && void pump());
  await listener.query(`listen "${rows[0].channel}"`);
  const poll = setInterval(() => void pump(), pollMs);
  const heartbeat = setInterval(() => {
    if (running.size) boss.touch(queue, [...running.values()]).catch((e) => console.error("[dispatcher touch]", e.message));
  }, (HEARTBEAT_SECONDS / 2) * 1000);
  void pump();

  return {
    async stop() {
      stopped = true;
      clearInterval(poll);
      clearInterval(heartbeat);
      await listener.end();
      while (running.size || pumping) await new Promise((r) => setTimeout(r, 10));
      if (finished.length) await boss.complete(queue, finished.splice(0));
    },
  };
}
