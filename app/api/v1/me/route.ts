import { authenticateRequest } from "@/server/auth/session";
import { apiRoute, jsonResponse } from "@/server/http/route";

export const dynamic = "force-dynamic";

// GET /api/v1/me: who the API key or session authenticates as
export const GET = apiRoute(async (req) => {
  const p = await authenticateRequest(req);
  return jsonResponse({ userId: p.userId, email: p.email, role: p.role, via: p.via });
});
