import { z } from "zod";

// The only place that reads process.env. Values are validated once, at first import.

const optionalString = z.string().trim().min(1).optional().catch(undefined);
const bool = z
  .enum(["true", "false", "1", "0"])
  .transform((v) => v === "true" || v === "1")
  .optional();

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: z.string().url().optional(),
  // Connections per process. A query holds its connection until the event loop reads the
  // answer, so under load a small pool queues requests behind busy ones (bench/history/2026-11-earlier-rounds.md).
  // Unset: 20, or 5 on Vercel, where every function instance opens its own pool (server/db.ts).
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(500).optional(),
  // How long a request waits for a pooled connection (including opening one) before it answers 503.
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5_000),
  // The longest one statement may run: PostgreSQL cancels it (statement_timeout), and the app
  // gives up on its answer a little later, for a server that cannot even cancel (frozen, cut off).
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
  // Read replicas (docs/scaling.md "Read replicas"): streaming standbys of DATABASE_URL's primary,
  // comma-separated, for the reads that tolerate lag (history, finished runs' events, the console,
  // usage reports). A replica more than DATABASE_REPLICA_MAX_LAG_MS behind is not read; a read that
  // must see its caller's own write waits up to DATABASE_REPLICA_WAIT_MS for the replica to replay
  // it, then goes to the primary. Each replica's position is checked every DATABASE_REPLICA_CHECK_MS.
  DATABASE_REPLICA_URL: z
    .string()
    .default("")
    .transform((list) => list.split(",").map((url) => url.trim()).filter(Boolean))
    .pipe(z.array(z.string().url("DATABASE_REPLICA_URL must be connection URLs, comma-separated"))),
  DATABASE_REPLICA_MAX_LAG_MS: z.coerce.number().int().min(100).max(3_600_000).default(5_000),
  DATABASE_REPLICA_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(200),
  DATABASE_REPLICA_CHECK_MS: z.coerce.number().int().min(20).max(60_000).default(1_000),
  // How long /api/health waits for the database before it reports it unreachable.
  HEALTH_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
  AUTH_SECRET: optionalString,
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  // Read by the start scripts only: the address `npm start` / `npm run dev` listen on (their
  // --hostname flag wins). Unset: every interface, as `next start` does.
  HOSTNAME: optionalString,
  DATA_DIR: z.string().default(".data"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  RUN_DEADLINE_SECONDS: z.coerce.number().int().min(1).max(86_400).default(600),
  // POST /api/v1/ag-ui: how long a streaming run whose requester went away (AG-UI's Stop) waits
  // for someone to re-attach before it is cancelled.
  AG_UI_STOP_GRACE_MS: z.coerce.number().int().min(0).max(60_000).default(1_500),
  // Streams following runs on this instance: per run, and per user (all their API keys and sessions), so one caller
  // cannot hold every connection (each follower costs a socket and a share of the fan-out).
  RUN_FOLLOWERS_PER_RUN: z.coerce.number().int().min(1).max(100_000).default(500),
  RUN_FOLLOWERS_PER_USER: z.coerce.number().int().min(1).max(100_000).default(200),
  // Host API audit rows (runner_api_calls) older than this are deleted by a periodic sweep.
  RUNNER_API_AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(30),
  // The event log's lifecycle (docs/event-log-lifecycle.md), both off when unset: a finished run's
  // events move to the attachment storage this many days after the run started...
  RUN_ARCHIVE_AFTER_DAYS: z.coerce.number().int().min(1).max(36_500).optional(),
  // ...and are deleted (archived or not) this many days after it; its thread stays whole.
  RUN_EVENTS_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).optional(),
  LLM_BASE_URL: z.string().url().optional(),
  LLM_API_KEY: optionalString,
  LLM_MODEL: optionalString,
  OPENAI_API_KEY: optionalString,
  // Knowledge-base embeddings: the embeddings model on LLM_BASE_URL (else OpenAI's, with
  // OPENAI_API_KEY). Unset: knowledge retrieval is full-text only.
  LLM_EMBEDDING_MODEL: optionalString,
  // Milliseconds between the offline demo model's tokens, so streaming is visible (browser tests raise it).
  DEMO_MODEL_DELAY_MS: z.coerce.number().int().min(0).max(10_000).default(15),
  S3_ENDPOINT: z.string().url().optional(),
  S3_REGION: z.string().default("us-east-1"),
  S3_BUCKET: optionalString,
  S3_ACCESS_KEY_ID: optionalString,
  S3_SECRET_ACCESS_KEY: optionalString,
  S3_FORCE_PATH_STYLE: bool,
  // The app's public origin, for absolute URLs it hands out (local-storage signed URLs). Unset:
  // the Host each request was sent to (history outside a request: http://localhost:PORT). Set it
  // behind a reverse proxy whose Host differs from the public one, or use TRUST_PROXY.
  PUBLIC_URL: z.string().url().optional(),
  // A reverse proxy in front of the app sets X-Forwarded-Host/-Proto: believe them (they are
  // ignored otherwise, since any client can send them).
  TRUST_PROXY: bool,
  // Failed API key checks (and, counted apart, runner secret checks) from all addresses together
  // in one minute before every further failing one answers 429 (server/limits/attempts.ts).
  CREDENTIAL_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(100),
  // Refused credentials one address may send within 15 minutes before the back-off starts.
  CREDENTIAL_FAILURES_FREE_PER_ADDRESS: z.coerce.number().int().min(1).max(1_000_000).default(20),
  // Hosts a runner endpoint may be registered on although they are not public addresses
  // (loopback, private networks: local development), comma-separated as URLs spell them.
  RUNNER_ALLOWED_HOSTS: z
    .string()
    .default("")
    .transform((list) => list.split(",").map((host) => host.trim()).filter(Boolean)),
  // project_cli: modules a run may use unless the caller narrows them (comma-separated).
  // Unset: every registered module (server/tools/project-cli/allow-list.ts checks the names).
  PROJECT_CLI_MODULES: optionalString,
  // Operations (docs/operations.md): the default budgets of every user an admin gave no budget of
  // their own (unset: no limit of that kind), and the bearer token that may scrape GET /api/metrics
  // (unset: admins' browser sessions only).
  BUDGET_TOKENS_PER_DAY: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  BUDGET_RUNS_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).optional(),
  BUDGET_CONCURRENT_RUNS: z.coerce.number().int().min(1).max(1_000_000).optional(),
  // The output tokens a run reserves of its daily token budgets when its request names no max_tokens
  // (server/usage/reservation.ts).
  BUDGET_RESERVE_OUTPUT_TOKENS: z.coerce.number().int().min(0).max(10_000_000).default(4096),
  METRICS_TOKEN: z.string().min(16, "METRICS_TOKEN must be at least 16 characters").optional(),
  // OpenTelemetry traces go over OTLP/HTTP when one of these names a collector (the exporter reads
  // the other standard OTEL_EXPORTER_OTLP_* variables itself); none set: tracing is off and costs nothing.
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
  OTEL_SERVICE_NAME: z.string().default("dispatch"),
  OTEL_SDK_DISABLED: bool,
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(0).max(600_000).optional(),
  // Approvals (docs/approvals.md): how long a write waits for a person before it expires.
  APPROVAL_TTL_SECONDS: z.coerce.number().int().min(60).max(30 * 24 * 3600).default(24 * 3600),
  // Read by the start scripts only: the first admin's credentials and the embedded database's port.
  DISPATCH_ADMIN_EMAIL: optionalString,
  DISPATCH_ADMIN_PASSWORD: optionalString,
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  // Vercel deployment (docs/vercel.md). VERCEL is set by the platform in its builds and functions.
  VERCEL: bool,
  // A direct (not pooled) connection for LISTEN/NOTIFY and migrations, when DATABASE_URL goes
  // through a transaction pooler (Neon's -pooler host, Supabase's port 6543). Unset: DATABASE_URL.
  DATABASE_URL_UNPOOLED: z.string().url().optional(),
  // Vercel Cron sends it as a bearer token; the cron endpoint refuses every call without it.
  CRON_SECRET: optionalString,
  // --- protocols and models (issue #24, docs/agent-api.md "Models") ---
  // More models besides LLM_MODEL, which stays the default: a comma-separated list of model ids
  // on the same server (LLM_BASE_URL, else OpenAI), or a JSON array of
  // {id, label?, base_url?, api_key?} where base_url names another OpenAI-compatible server.
  // server/models/catalog.ts checks it at start-up.
  LLM_MODELS: optionalString,
  // Which documents the default model takes as file parts (docs/attachments.md): "true" (PDF,
  // text, Markdown, CSV), "false", or a comma-separated list of those types. Unset: none for an
  // OpenAI-compatible server, PDFs for OpenAI. Documents it does not take reach it as text.
  LLM_FILE_PARTS: optionalString,
  // The rerank model on LLM_BASE_URL for runners' models/rerank (POST {LLM_BASE_URL}/rerank).
  // Unset: embedding similarity (LLM_EMBEDDING_MODEL), else full-text ranking.
  LLM_RERANK_MODEL: optionalString,
  // Hosts the Agent API may fetch image_url from although they are not public addresses (an
  // intranet image server), comma-separated as URLs spell them. Unset: public addresses only.
  IMAGE_URL_ALLOWED_HOSTS: z
    .string()
    .default("")
    .transform((list) => list.split(",").map((host) => host.trim()).filter(Boolean)),
  // --- the run queue (issue #25, docs/durable-runs.md "Busy threads") ---
  // How many queued runs' jobs this instance's graphile-worker runner takes at once (each only
  // starts its run, which then executes like any other), and how often it looks for due jobs when
  // no notification woke it (ms). 0 concurrency: this instance starts no queued runs (the others do).
  QUEUE_WORKER_CONCURRENCY: z.coerce.number().int().min(0).max(64).default(2),
  QUEUE_POLL_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(2_000),
  // --- webhooks (issue #43, docs/webhooks.md) ---
  // A failed delivery is tried again after WEBHOOK_RETRY_BASE_MS · 2^(attempts-1), at most
  // WEBHOOK_RETRY_MAX_MS, up to WEBHOOK_MAX_ATTEMPTS attempts; each waits WEBHOOK_TIMEOUT_MS for an answer.
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(5_000),
  WEBHOOK_RETRY_MAX_MS: z.coerce.number().int().min(10).max(86_400_000).default(2 * 3_600_000),
  WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(16),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  // Attempts this instance makes at once (graphile-worker slots apart from the run queue's); 0: it
  // sends none (the other instances, or on Vercel the deliver-webhooks cron, do).
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(0).max(64).default(4),
  // An endpoint is disabled (with a notice) once its attempts have failed this many times in a row
  // and for this long: both must hold, so a burst of failures or one slow event never disables it.
  WEBHOOK_DISABLE_AFTER_FAILURES: z.coerce.number().int().min(1).max(1_000_000).default(10),
  WEBHOOK_DISABLE_AFTER_SECONDS: z.coerce.number().int().min(0).max(30 * 86_400).default(24 * 3_600),
  // --- scheduled runs (issue #43, docs/schedules.md) ---
  // The shortest gap a schedule's cron expression may leave between two runs (seconds), and how
  // many schedules one user may keep.
  SCHEDULE_MIN_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  SCHEDULES_PER_USER: z.coerce.number().int().min(1).max(100_000).default(100),
  // --- runs that continue across Vercel invocations (issue #25, docs/vercel.md "Long runs") ---
  // Set by the platform: this deployment's own host (no scheme), and the secret of its
  // "Protection Bypass for Automation" when enabled. A run handed back before an invocation's limit
  // is continued by a call to this deployment's cron route (server/runs/continuation.ts).
  VERCEL_URL: optionalString,
  VERCEL_AUTOMATION_BYPASS_SECRET: optionalString,
  // Where that call goes instead of https://$VERCEL_URL (a custom origin, or a test's stand-in).
  CONTINUE_RUNS_URL: z.string().url().optional(),
});

export type Env = z.infer<typeof envSchema>;

function loadEnv(): Env {
  // An empty variable means unset, as in most deployment tools.
  const present = Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`Invalid environment: ${problems}`);
  }
  return parsed.data;
}

export const env: Env = loadEnv();

/** The database URL, or a clear error naming the variable that is missing. */
export function requireDatabaseUrl(): string {
  if (!env.DATABASE_URL) {
    throw new Error("DATABASE_URL is not set. Start the app with `npm run dev` (embedded PostgreSQL) or set DATABASE_URL.");
  }
  return env.DATABASE_URL;
}

/** The connection for LISTEN/NOTIFY and migrations: DATABASE_URL_UNPOOLED, else DATABASE_URL. */
export function requireDirectDatabaseUrl(): string {
  return env.DATABASE_URL_UNPOOLED ?? requireDatabaseUrl();
}

