import { authenticateRequest } from "@/server/auth/session";
import { AppError } from "@/server/errors";
import { apiRoute, jsonResponse } from "@/server/http/route";
import { UUID_PATTERN } from "@/server/protocols/ag-ui/run-input-rules";
import { getHistoryDay, parseHistoryDate } from "@/server/services/history";

export const dynamic = "force-dynamic";

// GET /api/v1/agent/history?threadId=&before=YYYY-MM-DD: one day of a thread's messages
export const GET = apiRoute(async (req) => {
  const principal = await authenticateRequest(req);
  const params = new URL(req.url).searchParams;
  const threadId = params.get("threadId") || null;
  if (threadId && !UUID_PATTERN.test(threadId)) throw new AppError("BAD_REQUEST", "threadId must be a valid UUID", { field: "threadId" });
  const before = parseHistoryDate(params.get("before"));
  return jsonResponse(await getHistoryDay({ userId: principal.userId, threadId, before, requestOrigin: new URL(req.url).origin }));
});
