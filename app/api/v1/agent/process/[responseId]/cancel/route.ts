import { authenticateRequest } from "@/server/auth/session";
import { apiRoute, jsonResponse } from "@/server/http/route";
import { cancelAgentResponse } from "@/server/services/agent-api";

export const dynamic = "force-dynamic";

// POST /api/v1/agent/process/{responseId}/cancel: stop the response's run (idempotent); its stream ends with status canceled
export const POST = apiRoute(async (req, ctx) => {
  const principal = await authenticateRequest(req);
  const { responseId } = (await ctx.params) as { responseId: string };
  return jsonResponse(await cancelAgentResponse({ userId: principal.userId, responseId }), 202);
});
