import "server-only";
import { env } from "./env";

/** What a Node.js server instance does once when it starts (called from instrumentation.ts). */
export async function startUp(): Promise<void> {
  // A PROJECT_CLI_MODULES naming an unknown module fails here, as the server starts, not at a run's first tool call.
  await import("./tools/project-cli/allow-list");
  // So does a wrong LLM_MODELS.
  (await import("./models/catalog")).modelCatalog();
  const { nodeRouterWanted } = await import("./http/node-routes");
  if (nodeRouterWanted()) await publishNodeRoutes();
  if (!env.DATABASE_URL) return;
  const [{ startRecoverySweeper }, { startApiCallRetention }] = await Promise.all([import("./runs/recovery"), import("./runner-host/api/audit-retention")]);
  startRecoverySweeper();
  startApiCallRetention();
}

/** Hands scripts/start-server.mjs the endpoints it serves itself (server/http/endpoints/fast-path.ts). */
async function publishNodeRoutes(): Promise<void> {
  const [{ createNodeRouter, publishNodeRouter }, { fastPathRoutes }] = await Promise.all([import("./http/node-routes"), import("./http/endpoints/fast-path")]);
  publishNodeRouter(createNodeRouter(fastPathRoutes()));
}
