import "server-only";
import { AppError } from "../../errors";
import { UUID_PATTERN } from "../../protocols/ag-ui/run-input-rules";
import { getHistoryDayText, parseHistoryDate, parseHistoryLocale } from "../../services/history";
import { endpoint } from "../endpoint";
import { jsonBodyResponse } from "../json";

/** GET /api/v1/agent/history?threadId=&before=YYYY-MM-DD&locale=: one day of a thread's messages, cards in `locale`. */
export const historyEndpoint = endpoint({
  method: "GET",
  path: "/api/v1/agent/history",
  auth: "claimed-caller",
  async handle({ req, principal, claimedKey, origin }) {
    const url = new URL(req.url);
    const threadId = url.searchParams.get("threadId") || null;
    if (threadId && !UUID_PATTERN.test(threadId)) throw new AppError("BAD_REQUEST", "threadId must be a valid UUID", { field: "threadId" });
    const before = parseHistoryDate(url.searchParams.get("before"));
    const locale = parseHistoryLocale(url.searchParams.get("locale"));
    return jsonBodyResponse(await getHistoryDayText({ userId: principal.userId, threadId, before, requestOrigin: origin(), claimedKey, locale }));
  },
});
