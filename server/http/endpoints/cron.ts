import "server-only";
import { runScheduledDuty } from "../../operations/service/scheduled-duties";
import { endpoint } from "../endpoint";
import { jsonResponse } from "../json";
import { keepAlive } from "../keep-alive";

/**
 * GET /api/cron/{duty}: one periodic duty, called by Vercel Cron (vercel.json) with CRON_SECRET, or
 * by the app itself to continue a run in a new invocation (`recover-runs?run=<id>`).
 */
export const cronEndpoint = endpoint({
  method: "GET",
  path: "/api/cron/[duty]",
  auth: "none",
  async handle({ req, params }) {
    const done = await runScheduledDuty({
      duty: params.duty!,
      authorization: req.headers.get("authorization"),
      params: new URL(req.url).searchParams,
      keepExecuting: keepAlive,
    });
    return jsonResponse({ duty: params.duty, ...done });
  },
});
