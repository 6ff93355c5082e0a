import "server-only";
import { z } from "zod";
import type { Endpoint } from "../endpoint";
import type { OperationDoc } from "../openapi/operation";
import { conversationInfoEndpoint, conversationRunEndpoint } from "./ag-ui";
import { agentProcessEndpoint, cancelAgentResponseEndpoint } from "./agent-api";
import { decideInterruptEndpoint } from "./approvals";
import { presignAttachmentEndpoint, uploadAttachmentEndpoint } from "./attachments";
import { cronEndpoint } from "./cron";
import { historyEndpoint } from "./history";
import { addDocumentEndpoint, addUploadedDocumentEndpoint, presignDocumentEndpoint } from "./knowledge";
import { mcpEndpoint, mcpSessionEndpoint, mcpStreamEndpoint } from "./mcp";
import { metricsEndpoint } from "./metrics";
import { authorizationServerEndpoint, consentEndpoint, mcpProtectedResourceEndpoint, protectedResourceEndpoint, registerClientEndpoint, revocationEndpoint, tokenEndpoint } from "./oauth";
import { hostApiEndpoint } from "./runner-api";
import { createScheduleEndpoint, deleteScheduleEndpoint, getScheduleEndpoint, listSchedulesEndpoint, updateScheduleEndpoint } from "./schedules";
import { cancelRunEndpoint, runEventsEndpoint, runStatusEndpoint, startRunAliasEndpoint, startRunEndpoint } from "./runs";
import { healthEndpoint, meEndpoint, modelEndpoint, modelsEndpoint } from "./status";
import { signedObjectEndpoint, signedUploadEndpoint } from "./storage";
import {
  createWebhookEndpointEndpoint,
  deleteWebhookEndpointEndpoint,
  getWebhookEndpointEndpoint,
  listWebhookDeliveriesEndpoint,
  listWebhookEndpointsEndpoint,
  redeliverWebhookEndpoint,
  rotateWebhookSecretEndpoint,
  updateWebhookEndpointEndpoint,
} from "./webhooks";
import { switchBranchEndpoint } from "./branches";
import { deleteThreadEndpoint, forkThreadEndpoint, getThreadEndpoint, listThreadRunsEndpoint, listThreadsEndpoint, searchThreadsEndpoint, updateThreadEndpoint } from "./threads";

// Every endpoint, once: the public ones the OpenAPI document describes (server/http/openapi), and
// the rest with the reason they are not in it. The endpoints defined since the document exists
// carry their `doc` in their own definition; the older ones' docs are here, beside them. The
// drift test (openapi/document.test.ts) fails when a route file's endpoint is missing here.

const AG_UI_EVENTS = "AG-UI events (`docs/ag-ui.md`), one JSON object per `data:` line, each with its `id:` for `Last-Event-ID`; or AG-UI protobuf frames when Accept asks for `application/vnd.ag-ui.event+proto`.";
const loose = (id: string, description: string) => z.looseObject({}).meta({ id, description });
const Task = loose("Task", "The accepted run: `taskId`, `runId`, `threadId`, `status`, timings (`GET /api/v1/agent/runs/{taskId}` answers the same shape).");
const RUN_ID = { runId: "The run's taskId (or the client's runId)." };

const runAgentInput = (door: string) => ({
  contentType: "application/json",
  description: `An AG-UI RunAgentInput (${door}).`,
  schema: loose("RunAgentInput", "AG-UI 1.0 RunAgentInput: threadId, runId, messages, tools, context, state, forwardedProps."),
});

const LEGACY_DOCS = new Map<Endpoint, OperationDoc>([
  [healthEndpoint, { operationId: "health", tag: "Status", summary: "Health", security: "none", responses: { 200: { description: "The database is reachable.", json: loose("Health", "`{ok, version}`") }, 503: { description: "The database is not reachable." } } }],
  [meEndpoint, { operationId: "me", tag: "Status", summary: "Who am I", responses: { 200: { description: "The user the API key or session authenticates as.", json: loose("Me", "`{id, email, role}`") } } }],
  [modelEndpoint, { operationId: "agentModel", tag: "Status", summary: "The built-in agent's model", responses: { 200: { description: "`{id, provider, label, offline}`", json: loose("AgentModel", "The model the built-in agent runs on.") } } }],
  [modelsEndpoint, { operationId: "listModels", tag: "Status", summary: "List models", responses: { 200: { description: "The configured models, OpenAI-style, the default first.", json: loose("ModelList", "`{object: \"list\", data: [...]}`") } } }],
  [startRunEndpoint, { operationId: "startRun", tag: "Runs", summary: "Start a run", description: "Accepts a run on a thread. With `Accept: text/event-stream` the answer is the run's event stream; else 202 with its task (`docs/agent-api.md`).", requestBody: runAgentInput("docs/ag-ui.md"), responses: { 200: { description: "The run's events (Server-Sent Events).", sse: AG_UI_EVENTS }, 202: { description: "Accepted; follow it with GET /api/v1/agent/runs/{runId}/events.", json: Task } }, errors: [400, 406, 409, 413, 429] }],
  [startRunAliasEndpoint, { operationId: "startRunAlias", tag: "Runs", summary: "Start a run (alias)", description: "The same endpoint as POST /api/v1/agent/runs, under the name the attachments document uses.", requestBody: runAgentInput("docs/attachments.md"), responses: { 200: { description: "The run's events (Server-Sent Events).", sse: AG_UI_EVENTS }, 202: { description: "Accepted.", json: Task } }, errors: [400, 406, 409, 413, 429] }],
  [runStatusEndpoint, { operationId: "getRun", tag: "Runs", summary: "Get a run", params: RUN_ID, responses: { 200: { description: "Status, timings, error, usage, and a queued run's place in line.", json: Task } }, errors: [404] }],
  [cancelRunEndpoint, { operationId: "cancelRun", tag: "Runs", summary: "Cancel a run", description: "Idempotent.", params: RUN_ID, responses: { 202: { description: "Cancelling.", json: Task } }, errors: [404] }],
  [runEventsEndpoint, { operationId: "followRun", tag: "Runs", summary: "Follow a run's events", description: "Server-Sent Events, resumable with `Last-Event-ID` or `?after=N`; `?protocolVersion=` for pre-1.0 AG-UI clients.", params: RUN_ID, responses: { 200: { description: "The run's events from the resume point to its end.", sse: AG_UI_EVENTS } }, errors: [400, 404, 406, 410, 429] }],
  [historyEndpoint, { operationId: "getHistory", tag: "History", summary: "One day of a thread's messages", description: "`?threadId=&before=YYYY-MM-DD&locale=` (`docs/history.md`).", responses: { 200: { description: "A history day.", json: loose("HistoryDay", "`{scope, threadId, day, hasMore, messages}`") } }, errors: [400, 404] }],
  [uploadAttachmentEndpoint, { operationId: "uploadAttachment", tag: "Attachments", summary: "Upload an image or a document", requestBody: { contentType: "multipart/form-data", description: "`file` (a PNG, JPEG, GIF or WebP image, or a PDF, plain text, Markdown, CSV or JSON document) and an optional `threadId` (`docs/attachments.md`)." }, responses: { 201: { description: "`{bucket, path, mime_type, file_name?, url, size, expires_at}`", json: loose("Attachment", "The stored file and its signed URL.") } }, errors: [400, 413, 415] }],
  [presignAttachmentEndpoint, { operationId: "presignAttachment", tag: "Attachments", summary: "Presign a large image or document upload", responses: { 201: { description: "A signed PUT and the file's signed GET URL.", json: loose("PresignedAttachment", "`{bucket, path, upload: {url, headers}, url}`") } }, errors: [400, 413, 415] }],
  [decideInterruptEndpoint, { operationId: "decideInterrupt", tag: "Runs", summary: "Approve or deny an approval request", description: "Streams the run that continues from it (SSE), or 202 with its task; 200 with `run: null` while other requests of the same run still wait (`docs/agent-api.md`).", params: { interruptId: "The approval request's id." }, responses: { 200: { description: "The continuing run's events (Server-Sent Events), or `{run: null}`.", sse: AG_UI_EVENTS }, 202: { description: "Decided; the continuing run's task.", json: Task } }, errors: [400, 404, 409] }],
  [agentProcessEndpoint, { operationId: "agentProcess", tag: "Agent API", summary: "Run the agent (Agent API)", description: "An AgentRequest; an SSE stream of AgentResponse objects, or one AgentResponse when `stream` is false (`docs/agent-api.md`).", requestBody: { contentType: "application/json", description: "An AgentRequest.", schema: loose("AgentRequest", "The Agent API's request (docs/agent-api.md).") }, responses: { 200: { description: "AgentResponse objects as Server-Sent Events, or one AgentResponse.", sse: "AgentResponse objects, one per `data:` line (docs/agent-api.md)." } }, errors: [400, 409, 413, 429] }],
  [cancelAgentResponseEndpoint, { operationId: "cancelAgentResponse", tag: "Agent API", summary: "Cancel an Agent API response", params: { responseId: "The response's id." }, responses: { 200: { description: "Cancelling; the response's stream ends with status canceled.", json: loose("AgentCancel", "The response's status.") } }, errors: [404] }],
  [conversationRunEndpoint, { operationId: "agUiRun", tag: "AG-UI", summary: "Run (AG-UI door)", description: "For AG-UI clients that resend the conversation they hold; SSE, else 202 (`docs/ag-ui.md`).", requestBody: runAgentInput("docs/ag-ui.md"), responses: { 200: { description: "The run's events (Server-Sent Events).", sse: AG_UI_EVENTS }, 202: { description: "Accepted.", json: Task } }, errors: [400, 406, 409, 413, 429] }],
  [conversationInfoEndpoint, { operationId: "agUiInfo", tag: "AG-UI", summary: "AG-UI agent capabilities", security: "none", responses: { 200: { description: "AG-UI 1.0 AgentCapabilities.", json: loose("AgentCapabilities", "What the agent behind POST /api/v1/ag-ui can do.") } } }],
]);

/** The public REST endpoints and their docs, in the document's order (the OpenAPI endpoints add themselves: endpoints/openapi.ts). */
export function documentedEndpoints(): { endpoint: Endpoint; doc: OperationDoc }[] {
  const own = [
    ...[listThreadsEndpoint, searchThreadsEndpoint, getThreadEndpoint, updateThreadEndpoint, deleteThreadEndpoint, forkThreadEndpoint, switchBranchEndpoint, listThreadRunsEndpoint],
    ...[createWebhookEndpointEndpoint, listWebhookEndpointsEndpoint, getWebhookEndpointEndpoint, updateWebhookEndpointEndpoint, deleteWebhookEndpointEndpoint],
    ...[rotateWebhookSecretEndpoint, listWebhookDeliveriesEndpoint, redeliverWebhookEndpoint],
    ...[createScheduleEndpoint, listSchedulesEndpoint, getScheduleEndpoint, updateScheduleEndpoint, deleteScheduleEndpoint],
  ];
  return [...own.map((e) => ({ endpoint: e, doc: e.schemas!.doc! })), ...[...LEGACY_DOCS].map(([endpoint, doc]) => ({ endpoint, doc }))];
}

/** Endpoints that are not part of the public REST API, and why. */
export const UNDOCUMENTED_ENDPOINTS = new Map<Endpoint, string>([
  [metricsEndpoint, "the operator's Prometheus scrape (docs/operations.md)"],
  [cronEndpoint, "called by the scheduler and the app itself, with CRON_SECRET"],
  [hostApiEndpoint, "the runner host API, a protocol of its own for runners (docs/runners.md)"],
  [mcpEndpoint, "Dispatch as an MCP server, JSON-RPC over Streamable HTTP (docs/mcp.md)"],
  [mcpStreamEndpoint, "Dispatch as an MCP server: the stream a stateless server does not offer (405)"],
  [mcpSessionEndpoint, "Dispatch as an MCP server: the session a stateless server does not keep (405)"],
  [protectedResourceEndpoint, "OAuth protected-resource metadata of the MCP endpoint (RFC 9728; docs/mcp.md)"],
  [mcpProtectedResourceEndpoint, "OAuth protected-resource metadata of the MCP endpoint, path-suffixed (RFC 9728; docs/mcp.md)"],
  [authorizationServerEndpoint, "OAuth authorization server metadata (RFC 8414; docs/mcp.md)"],
  [registerClientEndpoint, "OAuth dynamic client registration for MCP clients (RFC 7591; docs/mcp.md)"],
  [consentEndpoint, "The OAuth consent page's form (a browser session; docs/mcp.md)"],
  [tokenEndpoint, "OAuth token endpoint for MCP clients (docs/mcp.md)"],
  [revocationEndpoint, "OAuth token revocation for MCP clients (RFC 7009; docs/mcp.md)"],
  [addDocumentEndpoint, "the admin console's, for an admin's browser session only"],
  [presignDocumentEndpoint, "the admin console's, for an admin's browser session only"],
  [addUploadedDocumentEndpoint, "the admin console's, for an admin's browser session only"],
  [signedObjectEndpoint, "signed URLs the attachments endpoints hand out, not called by name"],
  [signedUploadEndpoint, "signed URLs the attachments endpoints hand out, not called by name"],
]);
