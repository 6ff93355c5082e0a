import { issuePath } from "../../kernel/input-issues";
import { MULTITASK_STRATEGIES } from "../ag-ui/multitask";
import { z } from "zod";
import { MAX_MESSAGES, MAX_PAYLOAD_BYTES, MAX_RUN_ID_CHARS, countCodePoints, isDocumentMimeType, isNonBlankString, utf8ByteLength } from "../ag-ui/run-input-rules";

// Wire schema of the Agent API request (spec/agent-api-protocol.md, AgentScope Runtime's
// AgentRequest). Objects are strict: an unknown field is a 400 naming it. Every optional
// field also accepts null, because Python clients serialize unset pydantic fields as null.

const optional = <T extends z.ZodType>(schema: T) =>
  schema
    .nullish()
    .transform((value) => value ?? undefined)
    .optional();

/** A session_id is the client's name for its session: any string up to this length. */
export const MAX_SESSION_ID_CHARS = 256;

export const AGENT_REQUEST_ERRORS = {
  payloadTooLarge: "AgentRequest payload exceeds size limit",
  invalidJson: "AgentRequest body is not valid JSON",
  notObject: "AgentRequest must be a JSON object",
  // The rest follow the field's name in the message: "session_id: must be a valid UUID".
  sessionId: `must be a non-blank string of at most ${MAX_SESSION_ID_CHARS} characters`,
  responseIdLength: `exceeds length limit (${MAX_RUN_ID_CHARS} characters)`,
  n: "only 1 is supported: a response carries one answer; send n requests for n answers",
  imageUrl: "must be a URL",
  fileUrl: "must be the signed URL POST /api/v1/agent/attachments answered for the file",
  fileMimeType: "must be application/pdf, text/plain, text/markdown, text/csv or application/json",
  toolType: "only function tools are supported",
  stop: "expected a string or an array of strings",
} as const;

export const MESSAGE_TYPES = [
  "message",
  "function_call",
  "function_call_output",
  "plugin_call",
  "plugin_call_output",
  "component_call",
  "component_call_output",
  "mcp_list_tools",
  "mcp_approval_request",
  "mcp_call",
  "mcp_approval_response",
  "reasoning",
  "heartbeat",
  "error",
] as const;

const ErrorSchema = z.strictObject({ code: z.string(), message: z.string() });
const JsonObjectSchema = z.record(z.string(), z.unknown());

// Fields every content part may carry when a client echoes back what it received.
const contentEnvelope = {
  object: optional(z.literal("content")),
  index: optional(z.int().min(0)),
  delta: optional(z.boolean()),
  msg_id: optional(z.string()),
  status: optional(z.string()),
  sequence_number: optional(z.int()),
  error: optional(ErrorSchema),
};

export const TextContentSchema = z.strictObject({ ...contentEnvelope, type: z.literal("text"), text: optional(z.string()) });

export const ImageContentSchema = z.strictObject({
  ...contentEnvelope,
  type: z.literal("image"),
  image_url: z
    .string()
    .refine(isNonBlankString, AGENT_REQUEST_ERRORS.imageUrl),
});

/** Dispatch's own: a document uploaded to POST /api/v1/agent/attachments, by the signed URL it answered. */
export const FileContentSchema = z.strictObject({
  ...contentEnvelope,
  type: z.literal("file"),
  file_url: z.string().refine(isNonBlankString, AGENT_REQUEST_ERRORS.fileUrl),
  mime_type: z.string().refine(isDocumentMimeType, AGENT_REQUEST_ERRORS.fileMimeType),
  filename: optional(z.string()),
});

export const DataContentSchema = z.strictObject({ ...contentEnvelope, type: z.literal("data"), data: optional(JsonObjectSchema) });

export const InputContentSchema = z.discriminatedUnion("type", [TextContentSchema, ImageContentSchema, FileContentSchema, DataContentSchema]);

export const InputMessageSchema = z.strictObject({
  id: optional(z.string().min(1)),
  object: optional(z.literal("message")),
  type: optional(z.enum(MESSAGE_TYPES)),
  status: optional(z.string()),
  role: optional(z.enum(["user", "assistant", "system", "tool"])),
  content: optional(z.array(InputContentSchema)),
  code: optional(z.string()),
  message: optional(z.string()),
  usage: optional(JsonObjectSchema),
  metadata: optional(JsonObjectSchema),
  sequence_number: optional(z.int()),
  error: optional(ErrorSchema),
  // An mcp_approval_response item (server/protocols/agent-api/approvals.ts).
  approval_request_id: optional(z.string().min(1)),
  approve: optional(z.boolean()),
  reason: optional(z.string().max(1_000)),
});

const FunctionDefinitionSchema = z.strictObject({
  name: z.string().min(1),
  description: optional(z.string()),
  /** JSON Schema of the arguments. */
  parameters: optional(JsonObjectSchema),
});

const FunctionToolSchema = z.strictObject({
  type: optional(z.string().refine((type) => type === "function", AGENT_REQUEST_ERRORS.toolType)),
  function: FunctionDefinitionSchema,
});

/** The spec's `Union[Tool, Dict]`: the wrapped FunctionTool form, or the function itself. */
export const ToolEntrySchema = JsonObjectSchema.transform((value, ctx) => {
  const parsed = ("function" in value ? FunctionToolSchema : FunctionDefinitionSchema).safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: "custom", path: issue.path, message: issue.message });
    return z.NEVER;
  }
  const fn = "function" in parsed.data ? parsed.data.function : parsed.data;
  return { name: fn.name, description: fn.description ?? "", ...(fn.parameters ? { parameters: fn.parameters } : {}) };
});

export const AgentRequestSchema = z.strictObject({
  input: z.array(InputMessageSchema).min(1).max(MAX_MESSAGES),
  stream: optional(z.boolean()).transform((stream) => stream ?? true),
  /** AgentScope's BaseRequest carries a request id; accepted and not used. */
  id: optional(z.string()),
  model: optional(z.string().min(1)),
  top_p: optional(z.number().gt(0).max(1)),
  temperature: optional(z.number().min(0).max(2)),
  frequency_penalty: optional(z.number().min(-2).max(2)),
  presence_penalty: optional(z.number().min(-2).max(2)),
  max_tokens: optional(z.int().min(1)),
  stop: optional(z.union([z.string(), z.array(z.string()).max(16)], { error: AGENT_REQUEST_ERRORS.stop })),
  // The spec allows 1..5; a run produces one answer, so more is refused rather than ignored.
  n: optional(z.int().min(1).max(5).refine((n) => n === 1, AGENT_REQUEST_ERRORS.n)),
  seed: optional(z.int()),
  /** What to do when the session already has a run in progress (docs/agent-api.md): refuse (409) or cancel it first. */
  multitask_strategy: optional(z.enum(MULTITASK_STRATEGIES)),
  tools: optional(z.array(ToolEntrySchema)),
  session_id: optional(z.string().refine((id) => isNonBlankString(id) && countCodePoints(id) <= MAX_SESSION_ID_CHARS, AGENT_REQUEST_ERRORS.sessionId)),
  response_id: optional(
    z
      .string()
      .min(1)
      .refine((id) => countCodePoints(id) <= MAX_RUN_ID_CHARS, AGENT_REQUEST_ERRORS.responseIdLength),
  ),
});

export type InputContent = z.infer<typeof InputContentSchema>;
export type InputMessage = z.infer<typeof InputMessageSchema>;
export type AgentRequest = z.infer<typeof AgentRequestSchema>;

export type AgentRequestFailure = { ok: false; status: 400 | 413; message: string; field?: string };
export type ParseAgentRequestResult = { ok: true; request: AgentRequest } | AgentRequestFailure;

const failure = (message: string, field?: string): AgentRequestFailure =>
  field === undefined ? { ok: false, status: 400, message } : { ok: false, status: 400, message: `${field}: ${message}`, field };

/** The text the model reads from a user message: text parts as they are, data parts as JSON. */
export function inputText(content: readonly InputContent[] | undefined): string {
  let text = "";
  for (const part of content ?? []) {
    if (part.type === "text") text += part.text ?? "";
    else if (part.type === "data" && part.data) text += JSON.stringify(part.data);
  }
  return text;
}

/**
 * Validates a POST /api/v1/agent/process body: size, JSON, the strict schema (the first
 * problem, named by its field). Which items the run takes depends on whether the session is
 * new (input-items.ts), so that is checked once the session is known.
 */
export function parseAgentRequest(rawBody: string): ParseAgentRequestResult {
  if (rawBody.length > MAX_PAYLOAD_BYTES || utf8ByteLength(rawBody) > MAX_PAYLOAD_BYTES) {
    return { ok: false, status: 413, message: AGENT_REQUEST_ERRORS.payloadTooLarge };
  }
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return failure(AGENT_REQUEST_ERRORS.invalidJson);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return failure(AGENT_REQUEST_ERRORS.notObject);

  const parsed = AgentRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue ? issuePath(issue.path, "indexed") : "";
    // An unknown key is reported at its parent; name the key itself.
    const named = issue?.code === "unrecognized_keys" ? [field, issue.keys[0]].filter(Boolean).join(".") : field;
    return failure(issue?.message ?? "invalid AgentRequest", named || undefined);
  }
  return { ok: true, request: parsed.data };
}
