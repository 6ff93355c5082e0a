import { authenticateRequest } from "@/server/auth/session";
import { apiRoute, jsonResponse } from "@/server/http/route";
import { cancelRunForUser, runView } from "@/server/services/runs";

export const dynamic = "force-dynamic";

// POST /api/v1/agent/runs/{runId}/cancel: stop the run (idempotent)
export const POST = apiRoute(async (req, ctx) => {
  const principal = await authenticateRequest(req);
  const { runId } = (await ctx.params) as { runId: string };
  return jsonResponse(runView(await cancelRunForUser({ userId: principal.userId, runId })), 202);
});
