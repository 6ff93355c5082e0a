import "server-only";
import { env } from "./env";
import { logger } from "./logger";

/**
 * What a Node.js server instance does once when it starts (called from instrumentation.ts): a
 * configuration that cannot work is refused here, with what to set, not on a user's first request.
 */
export async function startUp(): Promise<void> {
  refuseUnworkableConfiguration();
  // A PROJECT_CLI_MODULES naming an unknown module fails here, as the server starts, not at a run's first tool call.
  await import("./tools/project-cli/allow-list");
  // So does a wrong LLM_MODELS.
  (await import("./models/catalog")).modelCatalog();
  const { nodeRouterWanted } = await import("./http/node-routes");
  if (nodeRouterWanted()) await publishNodeRoutes();
  if (!env.DATABASE_URL) return;
  const { bootstrapFirstAdmin } = await import("./accounts/service/first-admin");
  await bootstrapFirstAdmin();
  // On Vercel a function runs timers only while it serves, so Vercel Cron calls these duties
  // instead (vercel.json, server/operations/service/scheduled-duties.ts).
  if (env.VERCEL) return;
  const [{ startRecoverySweeper }, { startApiCallRetention }, { handOffRuns }, { startQueueWorker, stopQueueWorker }, { startEventLogLifecycle }] = await Promise.all([
    import("./runs/recovery"),
    import("./runner-host/api/audit-retention"),
    import("./runs/execute"),
    import("./queue/worker"),
    import("./run-archive/service"),
  ]);
  startRecoverySweeper();
  startApiCallRetention();
  startEventLogLifecycle();
  // Starts the runs that waited their turn on a busy thread; the other instances do too if this one cannot.
  await startQueueWorker().catch((err: unknown) => logger.error({ err }, "the queue worker did not start: this instance starts no queued runs"));
  // The production server (scripts/lib/next-server.mjs) calls this when the process is told to
  // stop: it takes no more queued runs, then its runs go on elsewhere.
  (globalThis as { [HAND_OFF]?: (withinMs: number) => Promise<number> })[HAND_OFF] = async (withinMs) => {
    await stopQueueWorker();
    return handOffRuns(withinMs);
  };
  // ...and this once it has drained, before `npm start` stops the embedded database under it.
  (globalThis as { [CLOSE_DATABASE]?: () => Promise<void> })[CLOSE_DATABASE] = async () => {
    const [{ stopRecoverySweeper }, { stopListening }, { closeDatabase }, { closeToolGateway }] = await Promise.all([
      import("./runs/recovery"),
      import("./runs/repository/notifications"),
      import("./operations/repository"),
      import("./tools/project-cli/gateway"),
    ]);
    stopRecoverySweeper();
    await stopListening();
    await Promise.all([closeDatabase(), closeToolGateway()]);
  };
}

const HAND_OFF = Symbol.for("dispatch.handOffRuns");
const CLOSE_DATABASE = Symbol.for("dispatch.closeDatabase");

function refuseUnworkableConfiguration(): void {
  const problems: string[] = [];
  // Sessions, tool credentials, signed URLs and sealed runner secrets all derive from it.
  // `npm start` and `npm run dev` generate one under DATA_DIR; a deployment sets its own.
  if (env.NODE_ENV === "production" && !env.AUTH_SECRET) {
    problems.push("AUTH_SECRET is not set: set it to a long random string (for example `openssl rand -base64 32`), the same on every instance");
  }
  if (env.VERCEL) {
    // The app's folder is read-only there and /tmp belongs to one instance: attachments need S3.
    if (!env.S3_BUCKET || !env.S3_ACCESS_KEY_ID || !env.S3_SECRET_ACCESS_KEY) {
      problems.push("on Vercel, attachments need S3-compatible storage: set S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY (and S3_ENDPOINT, S3_REGION, S3_FORCE_PATH_STYLE for a service other than AWS S3)");
    }
    if (!env.DATABASE_URL) problems.push("on Vercel there is no embedded database: set DATABASE_URL (and DATABASE_URL_UNPOOLED when it goes through a pooler)");
  }
  if (problems.length > 0) throw new Error(`Dispatch cannot start: ${problems.join("; ")}. See docs/vercel.md.`);
}

/** Hands the production server (scripts/lib/next-server.mjs) the endpoints it serves itself (server/http/endpoints/fast-path.ts). */
async function publishNodeRoutes(): Promise<void> {
  const [{ createNodeRouter, publishNodeRouter }, { fastPathRoutes }] = await Promise.all([import("./http/node-routes"), import("./http/endpoints/fast-path")]);
  publishNodeRouter(createNodeRouter(fastPathRoutes()));
}
