import "server-only";
import { runScheduledDuty } from "../../services/scheduled-duties";
import { endpoint } from "../endpoint";
import { jsonResponse } from "../json";

/** GET /api/cron/{duty}: one periodic duty, called by Vercel Cron (vercel.json) with CRON_SECRET. */
export const cronEndpoint = endpoint({
  method: "GET",
  path: "/api/cron/[duty]",
  auth: "none",
  async handle({ req, params }) {
    const done = await runScheduledDuty({ duty: params.duty!, authorization: req.headers.get("authorization") });
    return jsonResponse({ duty: params.duty, ...done });
  },
});
