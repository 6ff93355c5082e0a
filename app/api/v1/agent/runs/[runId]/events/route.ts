import { PROTOCOL_VERSION } from "@ag-ui/core";
import { authenticateRequest } from "@/server/auth/session";
import { AppError } from "@/server/errors";
import { apiRoute } from "@/server/http/route";
import { eventEncodingFor, sseResponse } from "@/server/http/sse";
import { LastEventIdError, parseLastEventId } from "@/server/protocols/ag-ui/sse";
import { checkResumePoint, followRunBatches } from "@/server/runs/subscribe";
import { TERMINAL_EVENT_TYPES } from "@/server/runs/types";
import { getRunForUser } from "@/server/services/runs";

export const dynamic = "force-dynamic";

// GET /api/v1/agent/runs/{runId}/events: the run's events as SSE (or AG-UI protobuf, when the
// Accept header asks for it), resumable with Last-Event-ID or ?after=N. Protobuf frames carry no
// id, but they are the log's events in order, one frame each: k frames read after N resume at N+k.
// A GET has no RunAgentInput to carry protocolVersion, so it may come as ?protocolVersion=; when
// absent the client is taken for AG-UI 1.0: no AG-UI client calls this endpoint by itself (HttpAgent
// only POSTs), its callers are the web chat and clients written against AG-UI 1.0 that follow a 202.
export const GET = apiRoute(async (req, ctx) => {
  const url = new URL(req.url);
  const encoding = eventEncodingFor(req.headers.get("accept"), url.searchParams.get("protocolVersion") ?? PROTOCOL_VERSION);
  const principal = await authenticateRequest(req);
  const { runId } = (await ctx.params) as { runId: string };
  let after: number;
  try {
    after = parseLastEventId(req.headers.get("last-event-id"), url.searchParams.get("after")) ?? 0;
  } catch (err) {
    if (err instanceof LastEventIdError) throw new AppError("BAD_REQUEST", err.message, { field: err.field });
    throw err;
  }
  const run = await getRunForUser({ userId: principal.userId, runId });
  await checkResumePoint({ runId: run.id, clientRunId: run.runId, after });
  return sseResponse((signal) => followRunBatches({ runId: run.id, after, signal }), { encoding, final: TERMINAL_EVENT_TYPES });
});
