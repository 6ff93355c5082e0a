import "server-only";
import { AppError } from "../errors";
import { authenticateRequest, claimedApiKeyCaller } from "../auth/session";
import { MAX_PAYLOAD_BYTES, RUN_INPUT_ERRORS } from "../protocols/ag-ui/run-input-rules";
import { parseRunAgentInput, userMessageParts } from "../protocols/ag-ui/run-input";
import type { RunRow } from "../repositories/runs";
import { ApiKeyRefusedError } from "../runs/accept";
import { forgetApiKeyOwner } from "../services/api-keys";
import { followRunBatches } from "../runs/subscribe";
import { startRun, taskAccepted } from "../services/runs";
import { jsonResponse } from "./route";
import { sseResponse } from "./sse";

function wantsEventStream(req: Request): boolean {
  return (req.headers.get("accept") ?? "").toLowerCase().includes("text/event-stream");
}

/**
 * POST /api/v1/agent/runs (and its alias /run): validate, accept, then stream or answer 202.
 *
 * A key seen in the last few minutes names its user without a database read, and the statement
 * that accepts the run checks the key (see startRun): one round trip before RUN_STARTED instead
 * of two. Any failure before that check verifies the key first, so a refused key is always
 * answered 401, as when it is read up front.
 */
export async function handleStartRun(req: Request): Promise<Response> {
  const claimed = claimedApiKeyCaller(req);
  const principal = claimed?.principal ?? (await authenticateRequest(req));
  let keyHash = claimed?.keyHash;
  const verifyKey = async () => {
    if (keyHash === undefined) return;
    keyHash = undefined;
    await authenticateRequest(req);
  };
  let run: RunRow;
  try {
    const declared = Number(req.headers.get("content-length") ?? "0");
    if (declared > MAX_PAYLOAD_BYTES) throw new AppError("PAYLOAD_TOO_LARGE", RUN_INPUT_ERRORS.payloadTooLarge);
    const parsed = parseRunAgentInput(await req.text());
    if (!parsed.ok) {
      throw new AppError(parsed.status === 413 ? "PAYLOAD_TOO_LARGE" : "BAD_REQUEST", parsed.message, parsed.field ? { field: parsed.field } : undefined);
    }
    // Images are checked against the caller before the run is accepted: the key first, then.
    if (userMessageParts(parsed.input).images.length > 0) await verifyKey();
    ({ run } = await startRun({ userId: principal.userId, input: parsed.input, protocol: "ag-ui", requestOrigin: new URL(req.url).origin, via: principal.via, apiKeyHash: keyHash }));
  } catch (err) {
    if (err instanceof ApiKeyRefusedError) forgetApiKeyOwner(err.keyHash);
    await verifyKey(); // throws the 401 that says what is wrong with the key
    if (err instanceof ApiKeyRefusedError) throw new AppError("UNAUTHORIZED", "Invalid API key");
    throw err;
  }
  if (wantsEventStream(req)) {
    return sseResponse((signal) => followRunBatches({ runId: run.id, after: 0, signal }), { headers: { "x-task-id": run.id } });
  }
  return jsonResponse(taskAccepted(run), 202);
}
