import "server-only";
import { AppError } from "../../kernel/errors";
import { CLIENT_ID_RULE, isClientId } from "../../protocols/ag-ui/run-input-rules";
import { getHistoryDayText, parseHistoryDate, parseHistoryLocale } from "../../threads/service/history";
import { endpoint } from "../endpoint";
import { jsonBodyResponse } from "../json";

/**
 * GET /api/v1/agent/history?threadId=&before=YYYY-MM-DD&locale=&reasoning=true: one day of a thread's
 * messages, cards in `locale`, the model's reasoning too when asked. threadId is a thread's id or
 * its owner's name for it (any string up to 256 characters, as POST /api/v1/ag-ui takes).
 */
export const historyEndpoint = endpoint({
  method: "GET",
  path: "/api/v1/agent/history",
  auth: "claimed-caller",
  async handle({ req, principal, claimedKey, origin }) {
    const url = new URL(req.url);
    const threadId = url.searchParams.get("threadId") || null;
    if (threadId && !isClientId(threadId)) throw new AppError("BAD_REQUEST", `threadId ${CLIENT_ID_RULE}`, { field: "threadId" });
    const before = parseHistoryDate(url.searchParams.get("before"));
    const locale = parseHistoryLocale(url.searchParams.get("locale"));
    const reasoning = url.searchParams.get("reasoning") === "true";
    return jsonBodyResponse(await getHistoryDayText({ userId: principal.userId, threadId, before, requestOrigin: origin(), claimedKey, locale, reasoning }));
  },
});
