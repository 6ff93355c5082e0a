import { authenticateRequest } from "@/server/auth/session";
import { apiRoute, jsonResponse } from "@/server/http/route";
import { getRunForUser, runView } from "@/server/services/runs";

export const dynamic = "force-dynamic";

// GET /api/v1/agent/runs/{runId}: status, timings, error, usage
export const GET = apiRoute(async (req, ctx) => {
  const principal = await authenticateRequest(req);
  const { runId } = (await ctx.params) as { runId: string };
  return jsonResponse(runView(await getRunForUser({ userId: principal.userId, runId })));
});
