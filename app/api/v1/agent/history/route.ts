import { withCaller } from "@/server/http/caller";
import { AppError } from "@/server/errors";
import { apiRoute, jsonBytesResponse } from "@/server/http/route";
import { UUID_PATTERN } from "@/server/protocols/ag-ui/run-input-rules";
import { getHistoryDayJson, parseHistoryDate } from "@/server/services/history";
import { requestOrigin } from "@/server/http/origin";

export const dynamic = "force-dynamic";

// GET /api/v1/agent/history?threadId=&before=YYYY-MM-DD: one day of a thread's messages
export const GET = apiRoute((req) =>
  withCaller(req, async ({ principal, claimedKey }) => {
    const url = new URL(req.url);
    const threadId = url.searchParams.get("threadId") || null;
    if (threadId && !UUID_PATTERN.test(threadId)) throw new AppError("BAD_REQUEST", "threadId must be a valid UUID", { field: "threadId" });
    const before = parseHistoryDate(url.searchParams.get("before"));
    return jsonBytesResponse(await getHistoryDayJson({ userId: principal.userId, threadId, before, requestOrigin: requestOrigin(req), claimedKey }));
  }),
);
