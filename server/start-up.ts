import "server-only";
import { env } from "./env";

/** What a Node.js server instance does once when it starts (called from instrumentation.ts). */
export async function startUp(): Promise<void> {
  // A PROJECT_CLI_MODULES naming an unknown module fails here, as the server starts, not at a run's first tool call.
  await import("./tools/project-cli/allow-list");
  const { nodeRouterWanted } = await import("./http/node-routes");
  if (nodeRouterWanted()) await publishNodeRoutes();
  if (!env.DATABASE_URL) return;
  const { startRecoverySweeper } = await import("./runs/recovery");
  startRecoverySweeper();
}

/**
 * The protocol calls an API key makes most, which scripts/start-server.mjs serves without Next
 * (server/http/node-routes.ts): the route modules' own handlers, so both paths run the same code.
 */
async function publishNodeRoutes(): Promise<void> {
  const [{ createNodeRouter, publishNodeRouter }, { MAX_CONVERSATION_PAYLOAD_BYTES }, runs, run, events, agentProcess, history, agUi] = await Promise.all([
    import("./http/node-routes"),
    import("./protocols/ag-ui/run-input-rules"),
    import("@/app/api/v1/agent/runs/route"),
    import("@/app/api/v1/agent/run/route"),
    import("@/app/api/v1/agent/runs/[runId]/events/route"),
    import("@/app/api/v1/agent/process/route"),
    import("@/app/api/v1/agent/history/route"),
    import("@/app/api/v1/ag-ui/route"),
  ]);
  publishNodeRouter(
    createNodeRouter([
      { method: "POST", path: "/api/v1/agent/runs", handler: runs.POST },
      { method: "POST", path: "/api/v1/agent/run", handler: run.POST },
      { method: "GET", path: "/api/v1/agent/runs/[runId]/events", handler: events.GET },
      { method: "POST", path: "/api/v1/agent/process", handler: agentProcess.POST },
      { method: "GET", path: "/api/v1/agent/history", handler: history.GET },
      { method: "POST", path: "/api/v1/ag-ui", handler: agUi.POST, maxBodyBytes: MAX_CONVERSATION_PAYLOAD_BYTES },
    ]),
  );
}
