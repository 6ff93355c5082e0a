import "server-only";
import { randomUUID } from "node:crypto";
import { AppError } from "../../kernel/errors";
import type { AgUiEvent } from "../../protocols/ag-ui/events";
import { parseRunAgentInput } from "../../protocols/ag-ui/run-input";
import { createAgentApiEncoder } from "../../protocols/agent-api/encoder";
import { HEARTBEAT, HEARTBEAT_INTERVAL_MS, withHeartbeats } from "../../protocols/agent-api/heartbeat";
import { approvalAnswers } from "../../protocols/agent-api/approvals";
import type { AgentRequest } from "../../protocols/agent-api/request";
import type { AgentResponse, RunStatus as ResponseStatus, StreamObject } from "../../protocols/agent-api/response";
import { generationParams, toRunAgentInput } from "../../protocols/agent-api/run-input";
import { openClientToolCalls } from "../../agent/conversation";
import { splitInput, type InputTurns } from "../../protocols/agent-api/input-items";
import { findNewestRunToolEvents, findThreadConversationState } from "../../runs/repository/conversation";
import { findRunByClientId, findRunById, type RunRow, type RunToolMessage } from "../../runs/repository/runs";
import { PROJECT_CLI_TOOL_NAME } from "../../tools/project-cli/tool";
import { findRunMcpServers } from "../../tools/repository/run-mcp-servers";
import { importRequestImages } from "./images";
import { rememberSessionName, sessionNameOf } from "./session";
import { threadNamed } from "../../threads/service/thread-names";
import { sameThread } from "../../runs/accept";
import { followRun } from "../../runs/subscribe";
import { TERMINAL_EVENT_TYPES, type RunStatus } from "../../kernel/runs";
import type { ClaimedApiKey } from "../../auth/session";
import { answerApprovalRequests, resumeOnlyInput } from "../../approvals/service";
import { cancelRunForUser, startRun, type KeepAlive } from "../../runs/service/runs";
import { completeCounts } from "../../usage/token-usage";

// The Agent API over the run engine: a request is one run on the session's thread, and its
// response stream is the run's event log encoded as Agent API objects. A client that goes
// away does not stop the run (it keeps going and lands in the thread's history); stopping
// it is an explicit cancel. Repeating a response_id follows the same run again.

/** The AG-UI parser's field names, in the Agent API request's terms. */
function requestField(field: string | undefined, sources: readonly number[]): string {
  if (!field) return "input";
  return field
    .replace(/^messages\[(\d+)\]/, (_, k: string) => `input[${sources[Number(k)] ?? 0}]`)
    .replace(/\.(url|mimeType)$/, ".image_url")
    .replace(/^threadId$/, "session_id")
    .replace(/^runId$/, "response_id");
}

const badItem = (message: string, field: string) => new AppError("BAD_REQUEST", `${field}: ${message}`, { field });

/** A new session's earlier turns, as the thread's history before the run's user message. */
function seedMessages(turns: InputTurns, runId: string): RunToolMessage[] {
  return turns.seed.map((turn) => {
    const messageId = turn.id ?? `msg_${randomUUID()}`;
    const metadata: Record<string, unknown> = { message_id: messageId, stage: "seed", seeded_by: runId };
    if (turn.call) Object.assign(metadata, { tool_call_id: turn.call.callId, tool_name: turn.call.name, tool_call_args: turn.call.arguments });
    return { messageId, content: turn.content, metadata, role: turn.role };
  });
}

/** The client's function outputs as tool messages of the thread, each answering a call the session really left open. */
async function answersToOpenCalls(threadId: string, runId: string, turns: InputTurns, newIds: readonly string[]): Promise<RunToolMessage[]> {
  const open = new Map(openClientToolCalls(await findNewestRunToolEvents({ threadId }), new Set([PROJECT_CLI_TOOL_NAME])).map((c) => [c.toolCallId, c]));
  return turns.outputs.map((output, k) => {
    const call = open.get(output.callId);
    if (!call) {
      throw new AppError("CONFLICT", `input[${output.index}]: call_id ${JSON.stringify(output.callId)} is not an open client tool call of this session`, {
        field: `input[${output.index}]`,
      });
    }
    open.delete(output.callId);
    const messageId = newIds[k]!;
    return {
      messageId,
      content: output.output,
      metadata: { run_id: runId, message_id: messageId, stage: "client_tool", tool_call_id: call.toolCallId, tool_name: call.toolName, tool_call_args: call.args },
    };
  });
}

export type AgentResponseStart = { run: RunRow; sessionId: string };

/**
 * A repeated response_id names the same response (how a client that left rejoins): it is followed
 * as it is, whatever the input, which its first request already took (a call it answered is no
 * longer open, its images are stored). Without its session it is found by id (a runId is one thread's).
 */
async function existingResponse({ request, userId, claimedKey }: { request: AgentRequest; userId: string; claimedKey?: ClaimedApiKey }): Promise<AgentResponseStart | null> {
  if (!request.response_id) return null;
  const existing = await findRunByClientId({ userId, runId: request.response_id });
  if (!existing) return null;
  await claimedKey?.verify();
  if (!request.session_id) return { run: existing, sessionId: await sessionNameOf(existing.threadId) };
  const session = threadNamed(userId, request.session_id);
  return { run: sameThread(existing, { runId: existing.runId, threadId: session.threadId }), sessionId: session.name };
}

/**
 * The request as a RunAgentInput, read as the AG-UI-native endpoint reads a conversation (the run
 * may bring only tool answers); a problem is named by the request's own field.
 */
function checkedRunInput(request: AgentRequest, turns: Parameters<typeof toRunAgentInput>[1], threadId: string, runId: string) {
  const { input, sources } = toRunAgentInput(request, turns, { threadId, runId, newId: () => `msg_${randomUUID()}` });
  const parsed = parseRunAgentInput(JSON.stringify(input), { conversation: true });
  if (!parsed.ok) {
    const field = requestField(parsed.field, sources);
    const problem = parsed.field ? parsed.message.replace(`${parsed.field}: `, "") : parsed.message;
    throw new AppError(parsed.status === 413 ? "PAYLOAD_TOO_LARGE" : "BAD_REQUEST", `${field}: ${problem}`, { field });
  }
  return parsed.input;
}

/**
 * Starts (or, for a known response_id, finds) the run for a validated request. The session
 * is a thread of the caller's (agent-api-session.ts): created when new, seeded with the earlier
 * turns the request brings; "not found" when it is someone else's, 409 when a run is already in
 * progress on it. On an existing session the run takes only the request's new tail.
 */
export async function startAgentResponse(opts: {
  userId: string;
  apiKeyId?: string;
  request: AgentRequest;
  requestOrigin?: string | null;
  claimedKey?: ClaimedApiKey;
  keepAlive?: KeepAlive;
}): Promise<AgentResponseStart> {
  const { request, userId } = opts;
  const existing = await existingResponse(opts);
  if (existing) return existing;
  if (!request.session_id && request.input.some((item) => item.type === "mcp_approval_response")) {
    throw new AppError("BAD_REQUEST", "session_id: required with mcp_approval_response (the session whose run asked for approval)", { field: "session_id" });
  }
  const session = request.session_id ? threadNamed(userId, request.session_id) : null;
  const threadId = session?.threadId ?? randomUUID();
  const owner = session ? (await findThreadConversationState({ threadId, messageIds: [] })).ownerId : null;
  if (owner !== null && owner !== userId) throw new AppError("NOT_FOUND", `Session ${request.session_id} not found`);
  const fresh = owner === null;
  const split = splitInput(request.input, fresh);
  if (!split.ok) throw badItem(split.message, split.field);
  const { turns } = split;
  const runId = request.response_id ?? `response_${randomUUID()}`;

  // mcp_approval_response items decide their requests first; without a user message or function
  // outputs the run only carries the decided work on.
  const answers = approvalAnswers(request.input);
  if (answers.length > 0) {
    await opts.claimedKey?.verify();
    await answerApprovalRequests({ userId, sessionId: request.session_id ? threadId : undefined, answers });
    if (turns.userIndex === null && turns.outputs.length === 0) {
      const resume = resumeOnlyInput({ threadId, runId, interruptIds: answers.map((a) => a.approvalRequestId), tools: request.tools ?? [] });
      const { run } = await startRun({ userId, input: resume, protocol: "agent-api", generation: generationParams(request), requestOrigin: opts.requestOrigin, apiKeyId: opts.apiKeyId, keepAlive: opts.keepAlive });
      return { run, sessionId: session?.name ?? run.threadId };
    }
  }
  const hasImages = turns.userIndex !== null && (request.input[turns.userIndex]!.content ?? []).some((part) => part.type === "image");
  // Nothing is fetched or stored for a key that is not checked yet.
  if (hasImages) await opts.claimedKey?.verify();
  const withImages = hasImages ? await importRequestImages({ userId, request, userIndex: turns.userIndex, requestOrigin: opts.requestOrigin }) : request;
  const runInput = checkedRunInput(withImages, turns, threadId, runId);
  const messageIds = runInput.messages.filter((m) => m.role === "tool").map((m) => m.id);
  const toolMessages = turns.outputs.length > 0 ? await answersToOpenCalls(threadId, runId, turns, messageIds) : turns.seed.length > 0 ? seedMessages(turns, runId) : undefined;
  if (session && fresh) await rememberSessionName(userId, session);
  const { run } = await startRun({
    userId,
    input: runInput,
    protocol: "agent-api",
    generation: generationParams(request),
    requestOrigin: opts.requestOrigin,
    apiKeyId: opts.apiKeyId,
    claimedKey: opts.claimedKey,
    toolMessages,
    keepAlive: opts.keepAlive,
    multitaskStrategy: request.multitask_strategy,
  });
  return { run, sessionId: session?.name ?? run.threadId };
}

async function runUsage(run: RunRow) {
  return completeCounts((await findRunById({ id: run.id }))?.usage);
}

/**
 * The response's objects, numbered from 0, from the run's first event to its end, with a
 * heartbeat after each `heartbeatMs` of silence (none when null). Ends after the terminal
 * response object, or when `signal` aborts.
 */
export async function* agentResponseStream(opts: { run: RunRow; sessionId: string; signal: AbortSignal; heartbeatMs?: number | null }): AsyncGenerator<StreamObject> {
  const { run, signal } = opts;
  // The calls of the run's MCP servers are mcp_* messages (protocols/agent-api/mcp.ts).
  const mcpServers = new Set((await findRunMcpServers({ runId: run.id, userId: run.userId })).map((s) => s.name));
  const encoder = createAgentApiEncoder({ responseId: run.runId, sessionId: opts.sessionId, createdAt: Math.floor(run.createdAt.getTime() / 1000), mcpServers });
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
export async function agentResponseResult(opts: { run: RunRow; sessionId: string; signal: AbortSignal }): Promise<AgentResponse> {
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
    session_id: await sessionNameOf(run.threadId),
    status: RESPONSE_STATUS[run.status],
    created_at: Math.floor(run.createdAt.getTime() / 1000),
    completed_at: run.finishedAt ? Math.floor(run.finishedAt.getTime() / 1000) : null,
    error: run.errorCode ? { code: run.errorCode, message: run.errorMessage ?? "" } : null,
  };
}
