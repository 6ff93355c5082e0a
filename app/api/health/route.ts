import { apiRoute, jsonResponse } from "@/server/http/route";
import { checkHealth } from "@/server/services/health";

export const dynamic = "force-dynamic";

// GET /api/health: database reachability and version, for load balancers
export const GET = apiRoute(async () => {
  const health = await checkHealth();
  return jsonResponse(health, health.database.reachable ? 200 : 503);
});
