import "server-only";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { poolStats, replicaReadStats } from "../operations/repository";
import { countWaitingRuns } from "../runs/repository/run-queue";

// Prometheus metrics of this process (each instance is scraped on its own), served at
// GET /api/metrics. Kept on globalThis: Next may load this module more than once in a process,
// and every copy must count into the same registry.

const SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
const FAST_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "dispatch_" });
  const metrics = {
    registry,
    runs: new Counter({ name: "dispatch_runs_total", help: "Runs that ended, by status and protocol", labelNames: ["status", "protocol"], registers: [registry] }),
    runDuration: new Histogram({
      name: "dispatch_run_duration_seconds",
      help: "Time from a run's start to its end, by protocol and status",
      labelNames: ["protocol", "status"],
      buckets: SECONDS,
      registers: [registry],
    }),
    timeToFirstEvent: new Histogram({
      name: "dispatch_run_time_to_first_event_seconds",
      help: "Time from a run's start to the first event its runner streamed (TTFE), by protocol",
      labelNames: ["protocol"],
      buckets: SECONDS,
      registers: [registry],
    }),
    tokens: new Counter({ name: "dispatch_tokens_total", help: "Tokens the runs reported, by kind (input, output, cached_input, reasoning) and model", labelNames: ["kind", "model"], registers: [registry] }),
    toolCalls: new Counter({ name: "dispatch_tool_calls_total", help: "Tool calls, by status (ok, failure, no_result)", labelNames: ["status"], registers: [registry] }),
    activeStreams: new Gauge({ name: "dispatch_active_streams", help: "Event streams following runs on this instance", registers: [registry] }),
    activeRuns: new Gauge({ name: "dispatch_active_runs", help: "Runs executing on this instance", registers: [registry] }),
    eventLogWrite: new Histogram({
      name: "dispatch_event_log_write_seconds",
      help: "Duration of one group commit of run events to the event log",
      buckets: FAST_SECONDS,
      registers: [registry],
    }),
    refusals: new Counter({ name: "dispatch_budget_refusals_total", help: "Runs refused by a budget, by limit", labelNames: ["limit"], registers: [registry] }),
    runsEnqueued: new Counter({ name: "dispatch_runs_enqueued_total", help: "Runs this instance accepted to wait their turn on a busy thread (the enqueue policy)", registers: [registry] }),
  };
  new Gauge({
    name: "dispatch_queue_depth",
    help: "Runs waiting their turn on a busy thread, across all instances (read from the database at each scrape)",
    registers: [registry],
    async collect() {
      // A scrape while the database is away still answers the process's own metrics.
      await countWaitingRuns().then((n) => this.set(n), () => undefined);
    },
  });
  new Gauge({
    name: "dispatch_db_pool_connections",
    help: "This process's database pool: connections open (total), idle, and queries waiting for one",
    labelNames: ["state"],
    registers: [registry],
    collect() {
      const stats = poolStats();
      this.set({ state: "total" }, stats.total);
      this.set({ state: "idle" }, stats.idle);
      this.set({ state: "waiting" }, stats.waiting);
    },
  });
  replicaGauges(registry);
  return metrics;
}

/** The read replicas (docs/scaling.md "Read replicas"): whether each is read, how far behind it is, and where reads went. */
function replicaGauges(registry: Registry): void {
  new Gauge({
    name: "dispatch_db_replica_up",
    help: "1 while a read replica takes reads, 0 while reads go to the primary instead (down, or behind the lag bound)",
    labelNames: ["replica"],
    registers: [registry],
    collect() {
      for (const r of replicaReadStats()?.replicas ?? []) this.set({ replica: r.name }, r.up ? 1 : 0);
    },
  });
  new Gauge({
    name: "dispatch_db_replica_lag_seconds",
    help: "How far behind the primary a read replica was at its last check (the oldest write it may lack)",
    labelNames: ["replica"],
    registers: [registry],
    collect() {
      for (const r of replicaReadStats()?.replicas ?? []) if (r.lagSeconds !== null) this.set({ replica: r.name }, r.lagSeconds);
    },
  });
  new Gauge({
    name: "dispatch_db_replica_reads",
    help: "Reads that could go to a replica, since the process started, by where they went (a replica's name, or primary)",
    labelNames: ["target"],
    registers: [registry],
    collect() {
      const stats = replicaReadStats();
      if (!stats) return;
      for (const r of stats.replicas) this.set({ target: r.name }, r.reads);
      this.set({ target: "primary" }, stats.primaryReads);
    },
  });
}

const slot = Symbol.for("dispatch.metrics");
export const metrics: ReturnType<typeof createMetrics> = ((globalThis as { [slot]?: ReturnType<typeof createMetrics> })[slot] ??= createMetrics());

/** The exposition text and its content type. */
export async function metricsExposition(): Promise<{ text: string; contentType: string }> {
  return { text: await metrics.registry.metrics(), contentType: metrics.registry.contentType };
}
