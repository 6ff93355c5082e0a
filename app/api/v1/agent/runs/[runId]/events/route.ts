import { authenticateRequest } from "@/server/auth/session";
import { AppError } from "@/server/errors";
import { apiRoute } from "@/server/http/route";
import { sseResponse } from "@/server/http/sse";
import { LastEventIdError, parseLastEventId } from "@/server/protocols/ag-ui/sse";
import { followRunBatches } from "@/server/runs/subscribe";
import { TERMINAL_EVENT_TYPES } from "@/server/runs/types";
import { getRunForUser } from "@/server/services/runs";

export const dynamic = "force-dynamic";

// GET /api/v1/agent/runs/{runId}/events: the run's events as SSE, resumable with Last-Event-ID or ?after=N
export const GET = apiRoute(async (req, ctx) => {
  const principal = await authenticateRequest(req);
  const { runId } = (await ctx.params) as { runId: string };
  let after: number;
  try {
    after = parseLastEventId(req.headers.get("last-event-id"), new URL(req.url).searchParams.get("after")) ?? 0;
  } catch (err) {
    if (err instanceof LastEventIdError) throw new AppError("BAD_REQUEST", err.message, { field: err.field });
    throw err;
  }
  const run = await getRunForUser({ userId: principal.userId, runId });
  return sseResponse((signal) => followRunBatches({ runId: run.id, after, signal }), { final: TERMINAL_EVENT_TYPES });
});
