import "server-only";
import { PROTOCOL_VERSION } from "@ag-ui/core";
import { AppError } from "../../kernel/errors";
import { MAX_PAYLOAD_BYTES, RUN_INPUT_ERRORS } from "../../protocols/ag-ui/run-input-rules";
import { parseRunAgentInput } from "../../protocols/ag-ui/run-input";
import { LastEventIdError, parseLastEventId } from "../../protocols/ag-ui/sse";
import { admitFollower, releasingOnError } from "../../runs/follower-caps";
import { checkResumePoint, followRunBatches } from "../../runs/subscribe";
import { TERMINAL_EVENT_TYPES, TERMINAL_STATUSES } from "../../kernel/runs";
import { cancelRunForUser, getRunForUser, runStatusForUser, runView, startSeedRun, taskAccepted } from "../../runs/service/runs";
import { parsedText } from "../bodies";
import { endpoint } from "../endpoint";
import { jsonResponse } from "../json";
import { eventEncodingFor, sseResponse, streamOrJson } from "../sse";

/**
 * POST /api/v1/agent/runs: validate, accept, then stream the run's events (when the Accept header
 * prefers a stream: SSE, or protobuf for AG-UI 1.0 clients) or answer 202.
 */
export const startRunEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/agent/runs",
  auth: "claimed-caller",
  negotiate: streamOrJson,
  body: parsedText({ maxBytes: MAX_PAYLOAD_BYTES, tooLargeMessage: RUN_INPUT_ERRORS.payloadTooLarge, parse: (text) => parseRunAgentInput(text) }),
  async handle({ principal, claimedKey, body: { input }, negotiated, origin, keepAlive }) {
    // Which stream a client can read depends on its protocol version (protobuf only from AG-UI
    // 1.0): a client that asked only for what its version cannot have is refused before its run starts.
    const encoding = negotiated.stream ? eventEncodingFor(negotiated.accept, input.protocolVersion) : null;
    // A stream past the follower caps is refused before its run starts.
    const slot = encoding ? admitFollower({ userId: principal.userId }) : null;
    const { run, position } = await releasingOnError(slot, () => startSeedRun({ userId: principal.userId, input, protocol: "ag-ui", requestOrigin: origin(), via: principal.via, apiKeyId: principal.apiKeyId, claimedKey, apiKeyHash: principal.apiKeyHash, keepAlive }));
    if (!encoding || !slot) return jsonResponse(taskAccepted(run, position), 202);
    // A queued run's stream opens now and stays quiet until the run starts: its first event is the
    // RUN_STARTED its executor writes then (or, cancelled before it started, RUN_STARTED and RUN_FINISHED).
    const follow = slot.forRun(run.id).holding((signal) => followRunBatches({ runId: run.id, after: 0, signal }));
    return sseResponse(follow, { encoding, headers: { "x-task-id": run.id }, final: TERMINAL_EVENT_TYPES });
  },
});

/** POST /api/v1/agent/run: the attachments document's name for the same endpoint. */
export const startRunAliasEndpoint = { ...startRunEndpoint, path: "/api/v1/agent/run" };

/** GET /api/v1/agent/runs/{runId}: status, timings, error, usage, and a queued run's place in line. */
export const runStatusEndpoint = endpoint({
  method: "GET",
  path: "/api/v1/agent/runs/[runId]",
  auth: "caller",
  handle: async ({ principal, params }) => jsonResponse(await runStatusForUser({ userId: principal.userId, runId: params.runId! })),
});

/** POST /api/v1/agent/runs/{runId}/cancel: stop the run (idempotent). */
export const cancelRunEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/agent/runs/[runId]/cancel",
  auth: "caller",
  handle: async ({ principal, params }) => jsonResponse(runView(await cancelRunForUser({ userId: principal.userId, runId: params.runId! })), 202),
});

/**
 * GET /api/v1/agent/runs/{runId}/events: the run's events as SSE (or AG-UI protobuf, when the
 * Accept header asks for it), resumable with Last-Event-ID or ?after=N. Protobuf frames carry no
 * id, but they are the log's events in order, one frame each: k frames read after N resume at N+k.
 * A GET has no RunAgentInput to carry protocolVersion, so it may come as ?protocolVersion=; when
 * absent the client is taken for AG-UI 1.0: no AG-UI client calls this endpoint by itself (HttpAgent
 * only POSTs), its callers are the web chat and clients written against AG-UI 1.0 that follow a 202.
 */
export const runEventsEndpoint = endpoint({
  method: "GET",
  path: "/api/v1/agent/runs/[runId]/events",
  auth: "caller",
  negotiate: (req) => eventEncodingFor(req.headers.get("accept"), new URL(req.url).searchParams.get("protocolVersion") ?? PROTOCOL_VERSION),
  async handle({ req, principal, params, negotiated: encoding }) {
    const after = resumePoint(req);
    const run = await getRunForUser({ userId: principal.userId, runId: params.runId! });
    await checkResumePoint({ runId: run.id, clientRunId: run.runId, after });
    const follow = admitFollower({ userId: principal.userId }).forRun(run.id).holding((signal) => followRunBatches({ runId: run.id, after, signal, ended: TERMINAL_STATUSES.has(run.status) }));
    return sseResponse(follow, { encoding, final: TERMINAL_EVENT_TYPES });
  },
});

function resumePoint(req: Request): number {
  try {
    return parseLastEventId(req.headers.get("last-event-id"), new URL(req.url).searchParams.get("after")) ?? 0;
  } catch (err) {
    if (err instanceof LastEventIdError) throw new AppError("BAD_REQUEST", err.message, { field: err.field });
    throw err;
  }
}
