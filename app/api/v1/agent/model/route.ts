import { currentModelInfo } from "@/server/models/provider";
import { authenticateRequest } from "@/server/auth/session";
import { apiRoute, jsonResponse } from "@/server/http/route";

export const dynamic = "force-dynamic";

// GET /api/v1/agent/model: the model the built-in agent runs on ({id, provider, label, offline})
export const GET = apiRoute(async (req) => {
  await authenticateRequest(req);
  return jsonResponse(currentModelInfo());
});
