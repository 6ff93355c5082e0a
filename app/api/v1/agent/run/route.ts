import { apiRoute } from "@/server/http/route";
import { handleStartRun } from "@/server/http/agent-runs";

export const dynamic = "force-dynamic";

// POST /api/v1/agent/run: alias of POST /api/v1/agent/runs
export const POST = apiRoute(handleStartRun);
