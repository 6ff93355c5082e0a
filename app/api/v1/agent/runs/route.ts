import { apiRoute } from "@/server/http/route";
import { handleStartRun } from "@/server/http/agent-runs";

export const dynamic = "force-dynamic";

// POST /api/v1/agent/runs: start a run (SSE with Accept: text/event-stream, else 202)
export const POST = apiRoute(handleStartRun);
