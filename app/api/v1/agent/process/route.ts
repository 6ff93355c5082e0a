import { AppError } from "@/server/errors";
import { apiRoute, jsonResponse } from "@/server/http/route";
import { withCaller } from "@/server/http/caller";
import { sseResponse } from "@/server/http/sse";
import { MAX_PAYLOAD_BYTES } from "@/server/protocols/ag-ui/run-input-rules";
import { AGENT_REQUEST_ERRORS, parseAgentRequest } from "@/server/protocols/agent-api/request";
import { agentResponseResult, agentResponseStream, startAgentResponse } from "@/server/services/agent-api";
import { requestOrigin } from "@/server/http/origin";

export const dynamic = "force-dynamic";

// POST /api/v1/agent/process: run the agent for an AgentRequest; an SSE object stream, or one AgentResponse when stream is false
export const POST = apiRoute(async (req) => {
  const { run, parsed } = await withCaller(req, async ({ principal, claimedKey }) => {
    if (Number(req.headers.get("content-length") ?? "0") > MAX_PAYLOAD_BYTES) throw new AppError("PAYLOAD_TOO_LARGE", AGENT_REQUEST_ERRORS.payloadTooLarge);
    const parsed = parseAgentRequest(await req.text());
    if (!parsed.ok) {
      throw new AppError(parsed.status === 413 ? "PAYLOAD_TOO_LARGE" : "BAD_REQUEST", parsed.message, parsed.field ? { field: parsed.field } : undefined);
    }
    const run = await startAgentResponse({ userId: principal.userId, request: parsed.request, userIndex: parsed.userIndex, requestOrigin: requestOrigin(req), claimedKey });
    return { run, parsed };
  });
  const headers = { "x-session-id": run.threadId, "x-response-id": run.runId };
  if (!parsed.request.stream) return jsonResponse(await agentResponseResult({ run, signal: req.signal }), 200, headers);
  return sseResponse(
    async function* (signal) {
      for await (const object of agentResponseStream({ run, signal })) {
        yield { seq: object.sequence_number ?? 0, type: object.object, json: JSON.stringify(object) };
      }
    },
    { withIds: false, headers },
  );
});
