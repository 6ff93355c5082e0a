// The host API for runners (AgentRunAPIProxy, spec/agent-runner-protocol.md §7-10) as wire
// schemas. One table, HOST_API_ACTIONS, names every action with its request and response
// schema, whether it streams NDJSON, and the grant it needs, so the route, the SDK client and
// the docs all read the same source.
//
// Transport: POST /api/v1/runner-api/{group}/{action}, JSON {run_id, ...parameters},
// Authorization: Bearer <runner secret>. Success {ok: true, data}; failure
// {ok: false, error: AgentAPIError} with the HTTP status of HOST_API_ERROR_STATUS. Streaming
// actions answer application/x-ndjson, one line per JSON object, the last being `final`/`end`
// or `error`; a failure found before the stream starts is an ordinary JSON error answer.
import { z } from "zod";
import { artifactRefSchema, STATE_SCOPES } from "./context";
import { MAX_STATE_VALUE_BYTES } from "./result";

export const HOST_API_PATH_PREFIX = "/api/v1/runner-api";
export const NDJSON_CONTENT_TYPE = "application/x-ndjson";

// ---------------------------------------------------------------- errors

export const AGENT_API_ERROR_CODES = [
  "unauthorized",
  "not_found",
  "deadline_exceeded",
  "payload_too_large",
  "rate_limited",
  "invalid_argument",
  "runtime_error",
] as const;
export type AgentAPIErrorCode = (typeof AGENT_API_ERROR_CODES)[number];

export const agentApiErrorSchema = z.object({
  code: z.enum(AGENT_API_ERROR_CODES),
  message: z.string(),
  retryable: z.boolean().default(false),
  details: z.record(z.string(), z.unknown()).default({}),
});
export type AgentAPIError = z.infer<typeof agentApiErrorSchema>;

/**
 * Usual HTTP status per code. Two refinements the host applies: `unauthorized` is 401 when the
 * credential itself is missing or wrong (403 means a valid runner asked for something its run
 * does not grant), and `runtime_error` is 502 when a downstream (model provider) failed and 501
 * when this host does not support the operation at all.
 */
export const HOST_API_ERROR_STATUS: Record<AgentAPIErrorCode, number> = {
  unauthorized: 403,
  not_found: 404,
  deadline_exceeded: 504,
  payload_too_large: 413,
  rate_limited: 429,
  invalid_argument: 400,
  runtime_error: 500,
};
export const CREDENTIAL_ERROR_STATUS = 401;
export const UPSTREAM_ERROR_STATUS = 502;
export const UNSUPPORTED_ERROR_STATUS = 501;

export const okEnvelope = <T extends z.ZodType>(data: T) => z.object({ ok: z.literal(true), data });
export const errorEnvelopeSchema = z.object({ ok: z.literal(false), error: agentApiErrorSchema });
export type HostApiErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

/** Every streamed answer may end with this line instead of its normal last line. */
export const streamErrorLineSchema = z.object({ type: z.literal("error"), error: agentApiErrorSchema });

// ---------------------------------------------------------------- limits

/** Largest artifacts/read_range slice and open_stream chunk. */
export const MAX_READ_RANGE_BYTES = 65_536;
/** A storage value; 512 KiB keeps its base64 form well inside the 1 MiB request limit. */
export const MAX_STORAGE_VALUE_BYTES = 512 * 1024;
export const MAX_STORAGE_LIST = 1000;
export { MAX_STATE_VALUE_BYTES };

// ---------------------------------------------------------------- shared pieces

const runId = z.string().min(1).max(200).describe("ctx.run_id of the run this call belongs to");
/** Every request is {run_id, ...parameters}; unknown keys are refused so typos surface. */
const request = <T extends z.ZodRawShape>(shape: T) => z.strictObject({ run_id: runId, ...shape });
const json = z.record(z.string(), z.unknown());
const id = (what: string) => z.string().min(1).max(200).describe(what);
const cursor = z.string().min(1).max(200).describe("Opaque cursor from an earlier answer");
const key = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\w.:/-]+$/, "must use letters, digits and . _ : / -");

// ---------------------------------------------------------------- models

const textPart = z.strictObject({ type: z.literal("text"), text: z.string() });
export const toolCallSchema = z.object({
  id: z.string().min(1).max(200),
  name: z.string().min(1).max(200),
  arguments: json.describe("Parsed JSON arguments"),
});
export type ModelToolCall = z.infer<typeof toolCallSchema>;

export const modelMessageSchema = z.discriminatedUnion("role", [
  z.strictObject({ role: z.literal("system"), content: z.string() }),
  z.strictObject({ role: z.literal("user"), content: z.union([z.string(), z.array(textPart).max(100)]) }),
  z.strictObject({
    role: z.literal("assistant"),
    content: z.string().nullish(),
    tool_calls: z.array(toolCallSchema).max(64).optional(),
  }),
  z.strictObject({ role: z.literal("tool"), tool_call_id: z.string().min(1).max(200), name: z.string().max(200).optional(), content: z.string() }),
]);
export type ModelMessage = z.infer<typeof modelMessageSchema>;

/** A tool the model may call; the host never runs it, it comes back as a tool call. */
export const modelToolSchema = z.strictObject({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "must be 1-64 letters, digits, _ or -"),
  description: z.string().max(4000).optional(),
  parameters: json.describe("JSON Schema of the arguments (type: object)"),
});

export const modelExtraArgsSchema = z.strictObject({
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  max_tokens: z.int().min(1).max(100_000).optional(),
  stop: z.array(z.string().max(100)).max(8).optional(),
  seed: z.int().optional(),
});

const modelRequestShape = {
  model_id: id("A model id from ctx.resources.models"),
  messages: z.array(modelMessageSchema).min(1).max(500),
  tools: z.array(modelToolSchema).max(64).optional(),
  extra_args: modelExtraArgsSchema.optional(),
};

export const FINISH_REASONS = ["stop", "length", "tool_calls", "content_filter", "error", "other"] as const;
export const usageSchema = z.object({ input_tokens: z.int().min(0), output_tokens: z.int().min(0), total_tokens: z.int().min(0) });
export const assistantMessageSchema = z.object({
  role: z.literal("assistant"),
  content: z.string(),
  tool_calls: z.array(toolCallSchema),
});
const modelResult = z.object({
  model_id: z.string(),
  message: assistantMessageSchema,
  finish_reason: z.enum(FINISH_REASONS),
  usage: usageSchema,
});

export const modelStreamLineSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("delta"), content: z.string() }),
  z.object({ type: z.literal("tool_call"), tool_call: toolCallSchema }),
  z.object({ type: z.literal("final"), ...modelResult.shape }),
  streamErrorLineSchema,
]);
export type ModelStreamLine = z.infer<typeof modelStreamLineSchema>;

// ---------------------------------------------------------------- tools

/** project_cli's parameters; other tools take their own object. */
export const projectCliParametersSchema = z.strictObject({
  module: z.string().min(1).max(64),
  method: z.string().min(1).max(64),
  input: json,
});

/**
 * ToolAgentOutput: what a host tool answers (tools/call), what the engine stores in a tool
 * message's `metadata.tool_agent_output` and what /history and the console read back. The one
 * definition; `ui_hints` is the tool's own vocabulary, checked by the tool that wrote it.
 */
export const toolAgentOutputSchema = z.object({
  tool_name: z.string(),
  tool_call_id: z.string(),
  tool_call_args: z.unknown(),
  status: z.enum(["success", "failure", "partial"]),
  result: z.object({ module: z.string(), method: z.string(), data: z.unknown() }).nullable(),
  error: z.object({ code: z.string(), message: z.string() }).loose().nullable(),
  ui_hints: z.unknown().nullable(),
});

const toolCallResponse = z.object({
  tool_name: z.string(),
  tool_call_id: z.string(),
  output: toolAgentOutputSchema,
  /** The compact text the built-in agent would show its model for this result. */
  tool_response_text: z.string(),
  /** The compiled UiSchema card, or null. */
  ui_schema: z.unknown().nullable(),
});

// ---------------------------------------------------------------- history, events

export const transcriptItemSchema = z.object({
  item_id: z.string(),
  cursor: z.string(),
  conversation_id: z.string(),
  seq: z.int(),
  role: z.enum(["user", "assistant", "tool", "system"]),
  content: z.string(),
  message_id: z.string(),
  run_id: z.string().nullable(),
  tool_call_id: z.string().nullable(),
  tool_name: z.string().nullable(),
  created_at: z.number().describe("Unix seconds"),
  /** Present only when the request set include_artifacts. */
  artifacts: z.array(artifactRefSchema).optional(),
});
export type TranscriptItem = z.infer<typeof transcriptItemSchema>;

export const eventEnvelopeSchema = z.object({
  event_id: z.string(),
  event_type: z.string(),
  event_time: z.number().describe("Unix seconds"),
  source: z.string(),
  source_event_type: z.string().nullable(),
  conversation_id: z.string(),
  seq: z.int(),
  cursor: z.string(),
  data: json,
  raw_ref: z.object({ kind: z.string(), id: z.string(), size: z.int().nullish() }).nullable(),
});
export type EventEnvelope = z.infer<typeof eventEnvelopeSchema>;

// ---------------------------------------------------------------- artifacts

export const artifactStreamLineSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("chunk"), offset: z.int().min(0), data_base64: z.string() }),
  z.object({ type: z.literal("end"), size: z.int().min(0), sha256: z.string(), mime_type: z.string() }),
  streamErrorLineSchema,
]);
export type ArtifactStreamLine = z.infer<typeof artifactStreamLineSchema>;

// ---------------------------------------------------------------- state, storage

export const STORAGE_AREAS = ["plugin", "workspace", "binding"] as const;
export type StorageArea = (typeof STORAGE_AREAS)[number];
const scope = z.enum(STATE_SCOPES);
const area = z.enum(STORAGE_AREAS);

// ---------------------------------------------------------------- the table

/**
 * The grant in the run's authorization an action needs (RunAuthorization, server/runner-host/policy.ts).
 * Operation-granted groups name their operation here and nowhere else: the manifest's
 * permissions, the binding policy and the authorization check all read them off this table.
 * state, storage and platform_api are granted per scope, area and action instead.
 */
export type OperationGroup = "models" | "tools" | "knowledge_bases" | "history" | "events" | "artifacts";
export type HostApiPermission = { group: OperationGroup; operation: string } | { group: "state" } | { group: "storage" } | { group: "platform_api" };

type ActionSpec = {
  request: z.ZodType;
  /** For JSON actions the `data` of {ok: true, data}; for streaming ones, one NDJSON line. */
  response: z.ZodType;
  streaming: boolean;
  permission: HostApiPermission;
  description: string;
};

const action = <Req extends z.ZodType, Res extends z.ZodType, const Permission extends HostApiPermission, Streaming extends boolean = false>(spec: {
  request: Req;
  response: Res;
  streaming?: Streaming;
  permission: Permission;
  description: string;
}) => ({ ...spec, streaming: (spec.streaming ?? false) as Streaming }) satisfies ActionSpec;

export const HOST_API_ACTIONS = {
  "models/invoke": action({
    description: "One model completion. Tools are returned as tool calls, never run by the host.",
    permission: { group: "models", operation: "invoke" },
    request: request(modelRequestShape),
    response: modelResult,
  }),
  "models/stream": action({
    description: "A streamed completion: delta and tool_call lines, then final (or error).",
    permission: { group: "models", operation: "stream" },
    streaming: true,
    request: request(modelRequestShape),
    response: modelStreamLineSchema,
  }),
  "models/rerank": action({
    description:
      "Orders documents by relevance to the query, best first, with the host's ranker: its rerank model, else embedding similarity with its embedding model, else full-text ranking (`ranker` says which and `model_id` which model, null for full text; scores are comparable within one answer only). The operation is the grant: the ranking model is the host's, not one of ctx.resources.models.",
    permission: { group: "models", operation: "rerank" },
    request: request({
      model_id: id(
        "Optional: the ranking model the runner expects (the host's LLM_RERANK_MODEL, else its LLM_EMBEDDING_MODEL); refused (invalid_argument) when the host ranks with another, or by full text. Omit it to rank with whatever the host has.",
      ).optional(),
      query: z.string().min(1).max(10_000),
      documents: z.array(z.string().max(100_000)).min(1).max(1000),
      top_k: z.int().min(1).max(1000).optional(),
    }),
    response: z.object({
      results: z.array(z.object({ index: z.int().min(0), score: z.number() })),
      ranker: z.enum(["rerank_model", "embeddings", "full_text"]),
      model_id: z.string().nullable(),
    }),
  }),
  "tools/get_detail": action({
    description: "A granted tool's description and JSON Schema of its parameters.",
    permission: { group: "tools", operation: "detail" },
    request: request({ tool_name: id("A tool name from ctx.resources.tools") }),
    response: z.object({ tool_name: z.string(), description: z.string(), parameters: json }),
  }),
  "tools/call": action({
    description: "Runs a granted host tool for the run's user (project_cli: {module, method, input}).",
    permission: { group: "tools", operation: "call" },
    request: request({
      tool_name: id("A tool name from ctx.resources.tools"),
      parameters: json,
      tool_call_id: z.string().min(1).max(200).optional().describe("The runner's id for this call; the host makes one when absent"),
    }),
    response: toolCallResponse,
  }),
  "knowledge/list": action({
    description: "The knowledge bases this run may search.",
    permission: { group: "knowledge_bases", operation: "list" },
    request: request({}),
    response: z.object({
      knowledge_bases: z.array(z.object({ kb_id: z.string(), name: z.string(), description: z.string(), document_count: z.int().min(0) })),
    }),
  }),
  "knowledge/retrieve": action({
    description: "The chunks of one knowledge base that best match the query.",
    permission: { group: "knowledge_bases", operation: "retrieve" },
    request: request({
      kb_id: id("A knowledge base id from ctx.resources.knowledge_bases"),
      query_text: z.string().min(1).max(4000),
      top_k: z.int().min(1).max(50).default(5),
      filters: z.strictObject({ document_ids: z.array(z.string().max(200)).max(500).optional() }).optional(),
    }),
    response: z.object({
      results: z.array(
        z.object({
          chunk_id: z.string(),
          document_id: z.string(),
          document_title: z.string(),
          content: z.string(),
          score: z.number(),
          /** Where the chunk sits (ord, headings) and how it matched. */
          metadata: json,
        }),
      ),
    }),
  }),
  "history/page": action({
    description:
      "A page of a conversation's transcript in chronological order. backward (default) takes the newest items (before before_cursor); forward the oldest (after after_cursor).",
    permission: { group: "history", operation: "page" },
    request: request({
      conversation_id: id("A conversation from ctx.resources.history; default the run's own").optional(),
      before_cursor: cursor.optional(),
      after_cursor: cursor.optional(),
      limit: z.int().min(1).max(200).default(50),
      direction: z.enum(["backward", "forward"]).default("backward"),
      include_artifacts: z.boolean().default(false),
    }),
    response: z.object({
      conversation_id: z.string(),
      items: z.array(transcriptItemSchema),
      /** More items exist beyond this page in the paging direction. */
      has_more: z.boolean(),
      /** Pass as before_cursor for the page before this one (null when empty). */
      before_cursor: z.string().nullable(),
      /** Pass as after_cursor for the page after this one (null when empty). */
      after_cursor: z.string().nullable(),
    }),
  }),
  "history/search": action({
    description: "Full-text search over the transcripts this run may read, best matches first.",
    permission: { group: "history", operation: "search" },
    request: request({
      query: z.string().min(1).max(500),
      filters: z
        .strictObject({
          conversation_id: id("Limit to one readable conversation").optional(),
          roles: z.array(z.enum(["user", "assistant", "tool"])).max(3).optional(),
          since: z.number().optional().describe("Unix seconds"),
          until: z.number().optional().describe("Unix seconds"),
        })
        .optional(),
      top_k: z.int().min(1).max(50).default(10),
    }),
    response: z.object({ items: z.array(transcriptItemSchema.extend({ score: z.number() })) }),
  }),
  "events/get": action({
    description: "One event of the run's conversation.",
    permission: { group: "events", operation: "get" },
    request: request({ event_id: id("An event id (ctx.event.event_id or from events/page)") }),
    response: z.object({ event: eventEnvelopeSchema }),
  }),
  "events/page": action({
    description: "The conversation's events, newest page first, each page in chronological order.",
    permission: { group: "events", operation: "page" },
    request: request({ before_cursor: cursor.optional(), limit: z.int().min(1).max(200).default(50) }),
    response: z.object({ events: z.array(eventEnvelopeSchema), has_more: z.boolean(), before_cursor: z.string().nullable() }),
  }),
  "artifacts/metadata": action({
    description: "An artifact of the run's conversation: name, MIME type, size, sha256, expiry.",
    permission: { group: "artifacts", operation: "metadata" },
    request: request({ artifact_id: id("An artifact id") }),
    response: z.object({ artifact: artifactRefSchema.extend({ created_at: z.number() }) }),
  }),
  "artifacts/read_range": action({
    description: `Up to ${MAX_READ_RANGE_BYTES} bytes of an artifact from offset, base64.`,
    permission: { group: "artifacts", operation: "read" },
    request: request({
      artifact_id: id("An artifact id"),
      offset: z.int().min(0).default(0),
      length: z.int().min(1).max(MAX_READ_RANGE_BYTES).default(MAX_READ_RANGE_BYTES),
    }),
    response: z.object({ artifact_id: z.string(), offset: z.int(), length: z.int(), size: z.int(), data_base64: z.string(), eof: z.boolean() }),
  }),
  "artifacts/open_stream": action({
    description: "The whole artifact as NDJSON chunk lines, then an end line with size and sha256.",
    permission: { group: "artifacts", operation: "read" },
    streaming: true,
    request: request({ artifact_id: id("An artifact id") }),
    response: artifactStreamLineSchema,
  }),
  "state/get": action({
    description: "A state value of this binding in a scope (found false when unset).",
    permission: { group: "state" },
    request: request({ scope, key }),
    response: z.object({ scope, key: z.string(), found: z.boolean(), value: z.unknown() }),
  }),
  "state/set": action({
    description: `Sets a JSON state value (at most ${MAX_STATE_VALUE_BYTES} bytes serialized).`,
    permission: { group: "state" },
    request: request({ scope, key, value: z.unknown().refine((v) => v !== undefined, "value is required (null is allowed)") }),
    response: z.object({ scope, key: z.string(), size: z.int() }),
  }),
  "state/delete": action({
    description: "Removes a state value.",
    permission: { group: "state" },
    request: request({ scope, key }),
    response: z.object({ scope, key: z.string(), deleted: z.boolean() }),
  }),
  "storage/get": action({
    description: "A stored blob (base64; found false when absent).",
    permission: { group: "storage" },
    request: request({ area, key }),
    response: z.object({
      area,
      key: z.string(),
      found: z.boolean(),
      value_base64: z.string().nullable(),
      size: z.int().nullable(),
      updated_at: z.number().nullable(),
    }),
  }),
  "storage/set": action({
    description: `Stores a blob (at most ${MAX_STORAGE_VALUE_BYTES} bytes).`,
    permission: { group: "storage" },
    request: request({ area, key, value_base64: z.base64("must be standard base64") }),
    response: z.object({ area, key: z.string(), size: z.int() }),
  }),
  "storage/delete": action({
    description: "Removes a blob.",
    permission: { group: "storage" },
    request: request({ area, key }),
    response: z.object({ area, key: z.string(), deleted: z.boolean() }),
  }),
  "storage/list": action({
    description: `Keys in an area, in key order, optionally by prefix (at most ${MAX_STORAGE_LIST}).`,
    permission: { group: "storage" },
    request: request({ area, prefix: z.string().max(200).optional(), limit: z.int().min(1).max(MAX_STORAGE_LIST).default(MAX_STORAGE_LIST) }),
    response: z.object({
      area,
      items: z.array(z.object({ key: z.string(), size: z.int(), updated_at: z.number() })),
      truncated: z.boolean(),
    }),
  }),
  "platform/request_action": action({
    description: "Asks the host to perform a platform action (message.send, message.edit in the web chat); refused unless the run grants it.",
    permission: { group: "platform_api" },
    request: request({ action: z.string().min(1).max(100), target: json.default({}), payload: json.default({}) }),
    response: z.object({ status: z.enum(["accepted", "executed"]), result: json.optional() }),
  }),
} as const;

export type HostApiActionName = keyof typeof HOST_API_ACTIONS;
export type HostApiRequest<A extends HostApiActionName> = z.input<(typeof HOST_API_ACTIONS)[A]["request"]>;
export type HostApiParsedRequest<A extends HostApiActionName> = z.output<(typeof HOST_API_ACTIONS)[A]["request"]>;
/** `data` of a JSON action's success, or one line of a streaming action. */
export type HostApiResponse<A extends HostApiActionName> = z.output<(typeof HOST_API_ACTIONS)[A]["response"]>;
export const HOST_API_ACTION_NAMES = Object.keys(HOST_API_ACTIONS) as HostApiActionName[];

type TablePermission = (typeof HOST_API_ACTIONS)[HostApiActionName]["permission"];
/** The operations of a group, as the table names them (`invoke`, `stream`... for models). */
export type HostApiOperation<G extends OperationGroup> = Extract<TablePermission, { group: G; operation: string }>["operation"];

/** A group's operations in table order, ready for z.enum. */
export function hostApiOperations<G extends OperationGroup>(group: G): [HostApiOperation<G>, ...HostApiOperation<G>[]] {
  const names = new Set<string>();
  for (const spec of Object.values(HOST_API_ACTIONS) as ActionSpec[]) {
    if (spec.permission.group === group && "operation" in spec.permission) names.add(spec.permission.operation);
  }
  return [...names] as [HostApiOperation<G>, ...HostApiOperation<G>[]];
}

/** The actions that answer NDJSON. */
export type HostApiStreamingAction = { [A in HostApiActionName]: (typeof HOST_API_ACTIONS)[A]["streaming"] extends true ? A : never }[HostApiActionName];

export function isHostApiAction(name: string): name is HostApiActionName {
  return Object.hasOwn(HOST_API_ACTIONS, name);
}
