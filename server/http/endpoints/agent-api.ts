import "server-only";
import { MAX_PAYLOAD_BYTES } from "../../protocols/ag-ui/run-input-rules";
import { AGENT_REQUEST_ERRORS, parseAgentRequest } from "../../protocols/agent-api/request";
import { agentResponseResult, agentResponseStream, cancelAgentResponse, startAgentResponse } from "../../agent-api/service/agent-api";
import { admitFollower, releasingOnError } from "../../runs/follower-caps";
import { parsedText } from "../bodies";
import { endpoint } from "../endpoint";
import { jsonResponse } from "../json";
import { sseResponse } from "../sse";

/** POST /api/v1/agent/process: run the agent for an AgentRequest; an SSE object stream, or one AgentResponse when stream is false. */
export const agentProcessEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/agent/process",
  auth: "claimed-caller",
  body: parsedText({ maxBytes: MAX_PAYLOAD_BYTES, tooLargeMessage: AGENT_REQUEST_ERRORS.payloadTooLarge, parse: parseAgentRequest }),
  async handle({ req, principal, claimedKey, body: { request }, origin, keepAlive }) {
    // A stream past the follower caps is refused before its run starts.
    const slot = request.stream ? admitFollower({ userId: principal.userId }) : null;
    const { run, sessionId } = await releasingOnError(slot, () => startAgentResponse({ userId: principal.userId, apiKeyId: principal.apiKeyId, request, requestOrigin: origin(), claimedKey, keepAlive }));
    // A header carries ASCII only: a session named with other characters is percent-encoded there.
    const headers = { "x-session-id": encodeURIComponent(sessionId), "x-response-id": encodeURIComponent(run.runId) };
    if (!slot) return jsonResponse(await agentResponseResult({ run, sessionId, signal: req.signal }), 200, headers);
    return sseResponse(
      slot.forRun(run.id).holding(async function* (signal) {
        for await (const object of agentResponseStream({ run, sessionId, signal })) {
          yield { seq: object.sequence_number ?? 0, type: object.object, json: JSON.stringify(object) };
        }
      }),
      { withIds: false, headers },
    );
  },
});

/** POST /api/v1/agent/process/{responseId}/cancel: stop the response's run (idempotent); its stream ends with status canceled. */
export const cancelAgentResponseEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/agent/process/[responseId]/cancel",
  auth: "caller",
  handle: async ({ principal, params }) => jsonResponse(await cancelAgentResponse({ userId: principal.userId, responseId: params.responseId! }), 202),
});
