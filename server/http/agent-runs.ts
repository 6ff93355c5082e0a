import "server-only";
import { AppError } from "../errors";
import { MAX_PAYLOAD_BYTES, RUN_INPUT_ERRORS } from "../protocols/ag-ui/run-input-rules";
import { parseRunAgentInput } from "../protocols/ag-ui/run-input";
import { followRunBatches } from "../runs/subscribe";
import { TERMINAL_EVENT_TYPES } from "../runs/types";
import { startRun, taskAccepted } from "../services/runs";
import { jsonResponse } from "./route";
import { withCaller } from "./caller";
import { sseResponse } from "./sse";

function wantsEventStream(req: Request): boolean {
  return (req.headers.get("accept") ?? "").toLowerCase().includes("text/event-stream");
}

/** POST /api/v1/agent/runs (and its alias /run): validate, accept, then stream or answer 202. */
export async function handleStartRun(req: Request): Promise<Response> {
  const run = await withCaller(req, async ({ principal, claimedKey }) => {
    const declared = Number(req.headers.get("content-length") ?? "0");
    if (declared > MAX_PAYLOAD_BYTES) throw new AppError("PAYLOAD_TOO_LARGE", RUN_INPUT_ERRORS.payloadTooLarge);
    const parsed = parseRunAgentInput(await req.text());
    if (!parsed.ok) {
      throw new AppError(parsed.status === 413 ? "PAYLOAD_TOO_LARGE" : "BAD_REQUEST", parsed.message, parsed.field ? { field: parsed.field } : undefined);
    }
    const { run } = await startRun({ userId: principal.userId, input: parsed.input, protocol: "ag-ui", requestOrigin: new URL(req.url).origin, via: principal.via, claimedKey });
    return run;
  });
  if (wantsEventStream(req)) {
    return sseResponse((signal) => followRunBatches({ runId: run.id, after: 0, signal }), { headers: { "x-task-id": run.id }, final: TERMINAL_EVENT_TYPES });
  }
  return jsonResponse(taskAccepted(run), 202);
}
