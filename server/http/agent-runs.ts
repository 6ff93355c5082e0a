import "server-only";
import { AppError } from "../errors";
import { JSON_MEDIA_TYPE, PROTO_MEDIA_TYPE, preferredMediaType, SSE_MEDIA_TYPE, wantsEventStream } from "../protocols/ag-ui/encoding";
import { MAX_PAYLOAD_BYTES, RUN_INPUT_ERRORS } from "../protocols/ag-ui/run-input-rules";
import { parseRunAgentInput } from "../protocols/ag-ui/run-input";
import { followRunBatches } from "../runs/subscribe";
import { TERMINAL_EVENT_TYPES } from "../runs/types";
import { startRun, taskAccepted } from "../services/runs";
import { jsonResponse } from "./route";
import { withCaller } from "./caller";
import { eventEncodingFor, notAcceptable, sseResponse } from "./sse";
import { requestOrigin } from "./origin";

/**
 * POST /api/v1/agent/runs (and its alias /run): validate, accept, then stream the run's events
 * (when the Accept header prefers a stream: SSE, or protobuf for AG-UI 1.0 clients) or answer 202.
 */
export async function handleStartRun(req: Request): Promise<Response> {
  const accept = req.headers.get("accept");
  const stream = wantsEventStream(accept);
  // An Accept header no answer can suit is refused before the caller or the body is read.
  if (!stream && !preferredMediaType(accept, [JSON_MEDIA_TYPE])) throw notAcceptable([JSON_MEDIA_TYPE, SSE_MEDIA_TYPE, PROTO_MEDIA_TYPE]);
  const { run, encoding } = await withCaller(req, async ({ principal, claimedKey }) => {
    const declared = Number(req.headers.get("content-length") ?? "0");
    if (declared > MAX_PAYLOAD_BYTES) throw new AppError("PAYLOAD_TOO_LARGE", RUN_INPUT_ERRORS.payloadTooLarge);
    const parsed = parseRunAgentInput(await req.text());
    if (!parsed.ok) {
      throw new AppError(parsed.status === 413 ? "PAYLOAD_TOO_LARGE" : "BAD_REQUEST", parsed.message, parsed.field ? { field: parsed.field } : undefined);
    }
    // Which stream a client can read depends on its protocol version (protobuf only from AG-UI
    // 1.0): a client that asked only for what its version cannot have is refused before its run starts.
    const encoding = stream ? eventEncodingFor(accept, parsed.input.protocolVersion) : null;
    const { run } = await startRun({ userId: principal.userId, input: parsed.input, protocol: "ag-ui", requestOrigin: requestOrigin(req), via: principal.via, claimedKey });
    return { run, encoding };
  });
  if (encoding) {
    return sseResponse((signal) => followRunBatches({ runId: run.id, after: 0, signal }), { encoding, headers: { "x-task-id": run.id }, final: TERMINAL_EVENT_TYPES });
  }
  return jsonResponse(taskAccepted(run), 202);
}
