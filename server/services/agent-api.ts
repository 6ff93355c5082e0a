import "server-only";
import { randomUUID } from "node:crypto";
import { AppError } from "../errors";
import type { AgUiEvent } from "../protocols/ag-ui/events";
import { parseRunAgentInput } from "../protocols/ag-ui/run-input";
import { createAgentApiEncoder } from "../protocols/agent-api/encoder";
import { HEARTBEAT, HEARTBEAT_INTERVAL_MS, withHeartbeats } from "../protocols/agent-api/heartbeat";
import { approvalAnswers } from "../protocols/agent-api/approvals";
import type { AgentRequest } from "../protocols/agent-api/request";
import type { AgentResponse, RunStatus as ResponseStatus, StreamObject } from "../protocols/agent-api/response";
import { generationParams, toRunAgentInput } from "../protocols/agent-api/run-input";
import { findRunByClientId, findRunById, type RunRow } from "../repositories/runs";
import { followRun } from "../runs/subscribe";
import { TERMINAL_EVENT_TYPES, type RunStatus } from "../runs/types";
import type { ClaimedApiKey } from "../auth/session";
import { answerApprovalRequests, resumeOnlyInput } from "./approvals";
import { cancelRunForUser, startRun, type KeepAlive } from "./runs";

// The Agent API over the run engine: a request is one run on the session's thread, and its
// response stream is the run's event log encoded as Agent API objects. A client that goes
// away does not stop the run (it keeps going and lands in the thread's history); stopping
// it is an explicit cancel. Repeating a response_id follows the same run again.

/** The AG-UI parser's field names, in the Agent API request's terms. */
function requestField(field: string | undefined, userIndex: number): string {
  if (!field) return "input";
  return field
    .replace(/^messages\[0\]/, `input[${userIndex}]`)
    .replace(/\.(url|mimeType)$/, ".image_url")
    .replace(/^threadId$/, "session_id")
    .replace(/^runId$/, "response_id");
}

/**
 * Starts (or, for a known response_id, finds) the run for a validated request. The session
 * is the thread: created for the caller when session_id is absent, "not found" when it is
 * someone else's, 409 when a run is already in progress on it.
 */
export async function startAgentResponse(opts: {
  userId: string;
  request: AgentRequest;
  userIndex: number;
  requestOrigin?: string | null;
  claimedKey?: ClaimedApiKey;
  keepAlive?: KeepAlive;
}): Promise<RunRow> {
  const { request, userIndex } = opts;
  // A response_id repeated without its session names the same response (a runId is one thread's).
  if (request.response_id && !request.session_id) {
    const existing = await findRunByClientId({ userId: opts.userId, runId: request.response_id });
    if (existing) {
      await opts.claimedKey?.verify();
      return existing;
    }
  }
  // mcp_approval_response items decide their requests first; without a user message the run only carries them on.
  const answers = approvalAnswers(request.input);
  if (answers.length > 0) {
    await opts.claimedKey?.verify();
    await answerApprovalRequests({ userId: opts.userId, sessionId: request.session_id, answers });
  }
  if (userIndex < 0) {
    const resume = resumeOnlyInput({
      threadId: request.session_id!,
      runId: request.response_id ?? `response_${randomUUID()}`,
      interruptIds: answers.map((a) => a.approvalRequestId),
      tools: request.tools ?? [],
    });
    const { run } = await startRun({ userId: opts.userId, input: resume, protocol: "agent-api", generation: generationParams(request), requestOrigin: opts.requestOrigin, keepAlive: opts.keepAlive });
    return run;
  }
  const input = toRunAgentInput(request, userIndex, {
    threadId: request.session_id ?? randomUUID(),
    runId: request.response_id ?? `response_${randomUUID()}`,
    messageId: `msg_${randomUUID()}`,
  });
  const parsed = parseRunAgentInput(JSON.stringify(input));
  if (!parsed.ok) {
    const field = requestField(parsed.field, userIndex);
    const problem = parsed.field ? parsed.message.replace(`${parsed.field}: `, "") : parsed.message;
    throw new AppError(parsed.status === 413 ? "PAYLOAD_TOO_LARGE" : "BAD_REQUEST", `${field}: ${problem}`, { field });
  }
  const { run } = await startRun({
    userId: opts.userId,
    input: parsed.input,
    protocol: "agent-api",
    generation: generationParams(request),
    requestOrigin: opts.requestOrigin,
    claimedKey: opts.claimedKey,
    keepAlive: opts.keepAlive,
  });
  return run;
}

async function runUsage(run: RunRow) {
  return (await findRunById({ id: run.id }))?.usage ?? null;
}

/**
 * The response's objects, numbered from 0, from the run's first event to its end, with a
 * heartbeat after each `heartbeatMs` of silence (none when null). Ends after the terminal
 * response object, or when `signal` aborts.
 */
export async function* agentResponseStream(opts: { run: RunRow; signal: AbortSignal; heartbeatMs?: number | null }): AsyncGenerator<StreamObject> {
  const { run, signal } = opts;
  const encoder = createAgentApiEncoder({ responseId: run.runId, sessionId: run.threadId, createdAt: Math.floor(run.createdAt.getTime() / 1000) });
  const records = followRun({ runId: run.id, after: 0, signal });
  const heartbeatMs = opts.heartbeatMs === undefined ? HEARTBEAT_INTERVAL_MS : opts.heartbeatMs;
  for await (const item of heartbeatMs === null ? records : withHeartbeats(records, heartbeatMs)) {
    if (item === HEARTBEAT) {
      yield encoder.heartbeat();
      continue;
    }
    const event = JSON.parse(item.json) as AgUiEvent;
    const final = TERMINAL_EVENT_TYPES.has(item.type) ? { usage: await runUsage(run) } : undefined;
    yield* encoder.encode(event, final);
    if (encoder.done) return;
  }
}

/** The finished response, for `stream: false`: waits for the run to end. */
export async function agentResponseResult(opts: { run: RunRow; signal: AbortSignal }): Promise<AgentResponse> {
  let last: AgentResponse | null = null;
  for await (const object of agentResponseStream({ ...opts, heartbeatMs: null })) {
    if (object.object === "response") last = object;
  }
  if (!last || !["completed", "failed", "canceled", "incomplete"].includes(last.status)) {
    throw new AppError("SERVICE_UNAVAILABLE", "The response ended before its run did; ask again with the same response_id");
  }
  const { sequence_number: _sequence, ...response } = last;
  return response;
}

const RESPONSE_STATUS: Record<RunStatus, ResponseStatus> = {
  queued: "created",
  running: "in_progress",
  completed: "completed",
  failed: "failed",
  cancelled: "canceled",
};

export type CancelAnswer = Pick<AgentResponse, "object" | "id" | "session_id" | "status" | "created_at" | "completed_at" | "error">;

/**
 * Cancels the caller's response (idempotent). The run stops asynchronously, so the status
 * may still read in_progress; the response's stream ends with `canceled`.
 */
export async function cancelAgentResponse(opts: { userId: string; responseId: string }): Promise<CancelAnswer> {
  const run = await cancelRunForUser({ userId: opts.userId, runId: opts.responseId });
  return {
    object: "response",
    id: run.runId,
    session_id: run.threadId,
    status: RESPONSE_STATUS[run.status],
    created_at: Math.floor(run.createdAt.getTime() / 1000),
    completed_at: run.finishedAt ? Math.floor(run.finishedAt.getTime() / 1000) : null,
    error: run.errorCode ? { code: run.errorCode, message: run.errorMessage ?? "" } : null,
  };
}
