import { firstIssue } from "../../kernel/input-issues";
import { z } from "zod";
import { sendsState, stateProblem } from "./state-rules";
import {
  MAX_CONVERSATION_MESSAGES,
  MAX_CONVERSATION_PAYLOAD_BYTES,
  MAX_MESSAGES,
  MAX_PAYLOAD_BYTES,
  MAX_RUN_ID_CHARS,
  RUN_INPUT_ERRORS,
  UUID_PATTERN,
  checkRunInputRules,
  contentText,
  countCodePoints,
  isDataUrl,
  isDocumentMimeType,
  isImageMimeType,
  isNonBlankString,
  utf8ByteLength,
  type RunInputFailure,
} from "./run-input-rules";

// Wire schemas for RunAgentInput (spec/agent-run-input.md, AG-UI 1.0). They describe the
// shape of an accepted input and the per-field limits; the cross-field rules, their order
// and their exact messages live in run-input-rules.ts, so parseRunAgentInput is the entry
// point for request bodies.

// Optional fields also accept null, which the spec allows on several of them and some
// clients send for "absent"; consumers only ever see undefined.
const optional = <T extends z.ZodType>(schema: T) =>
  schema
    .nullish()
    .transform((value) => value ?? undefined)
    .optional();

const JsonObjectSchema = z.record(z.string(), z.unknown());
const MessageIdSchema = z.string().min(1);
const ImageMimeTypeSchema = z.string().refine(isImageMimeType, RUN_INPUT_ERRORS.binaryMimeType);
const AttachmentUrlSchema = z
  .string()
  .refine(isNonBlankString, RUN_INPUT_ERRORS.binaryUrl)
  .refine((url) => !isDataUrl(url), RUN_INPUT_ERRORS.binaryData);

export const TextPartSchema = z.object({
  type: z.literal("text"),
  text: z.string(),
  id: optional(z.string()),
  metadata: optional(JsonObjectSchema),
});

/** The spec's binary block, after validation: an image referenced by (signed) URL, never inline data. */
export const BinaryPartSchema = z.object({
  type: z.literal("binary"),
  mimeType: ImageMimeTypeSchema,
  url: AttachmentUrlSchema,
  id: optional(z.string()),
  filename: optional(z.string()),
});

/** AG-UI 1.0's image part as @ag-ui/client sends it; only the URL source survives validation. */
export const ImagePartSchema = z.object({
  type: z.literal("image"),
  source: z.object({
    type: z.literal("url"),
    value: AttachmentUrlSchema,
    mimeType: ImageMimeTypeSchema,
  }),
  id: optional(z.string()),
  metadata: optional(JsonObjectSchema),
});

/** AG-UI 1.0's document part: an uploaded document (PDF, text, Markdown, CSV, JSON) by its signed URL. */
export const DocumentPartSchema = z.object({
  type: z.literal("document"),
  source: z.object({
    type: z.literal("url"),
    value: AttachmentUrlSchema,
    mimeType: z.string().refine(isDocumentMimeType, RUN_INPUT_ERRORS.documentMimeType),
  }),
  id: optional(z.string()),
  filename: optional(z.string()),
  metadata: optional(JsonObjectSchema),
});

export const UserContentPartSchema = z.discriminatedUnion("type", [TextPartSchema, BinaryPartSchema, ImagePartSchema, DocumentPartSchema]);
// Tool results may carry content parts in AG-UI 1.0; the same URL-only image rule holds.
export const ToolContentPartSchema = z.discriminatedUnion("type", [TextPartSchema, ImagePartSchema]);

const messageBase = {
  id: MessageIdSchema,
  subagentRunId: optional(z.string()),
  metadata: optional(JsonObjectSchema),
};

export const ToolCallSchema = z.object({
  id: z.string().min(1),
  type: z.literal("function"),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
  encryptedValue: optional(z.string()),
  metadata: optional(JsonObjectSchema),
});

export const UserMessageSchema = z.object({
  ...messageBase,
  role: z.literal("user"),
  content: z.union([z.string(), z.array(UserContentPartSchema)]),
  name: optional(z.string()),
  encryptedValue: optional(z.string()),
});

export const AssistantMessageSchema = z.object({
  ...messageBase,
  role: z.literal("assistant"),
  content: optional(z.string()),
  name: optional(z.string()),
  toolCalls: optional(z.array(ToolCallSchema)),
  encryptedValue: optional(z.string()),
});

export const SystemMessageSchema = z.object({
  ...messageBase,
  role: z.literal("system"),
  content: z.string(),
  name: optional(z.string()),
  encryptedValue: optional(z.string()),
});

export const DeveloperMessageSchema = z.object({
  ...messageBase,
  role: z.literal("developer"),
  content: z.string(),
  name: optional(z.string()),
  encryptedValue: optional(z.string()),
});

export const ToolMessageSchema = z.object({
  ...messageBase,
  role: z.literal("tool"),
  content: z.union([z.string(), z.array(ToolContentPartSchema)]),
  toolCallId: z.string().min(1),
  error: optional(z.string()),
  encryptedValue: optional(z.string()),
});

export const ReasoningMessageSchema = z.object({
  ...messageBase,
  role: z.literal("reasoning"),
  content: z.string(),
  encryptedValue: optional(z.string()),
});

export const ActivityMessageSchema = z.object({
  ...messageBase,
  role: z.literal("activity"),
  activityType: z.string(),
  content: JsonObjectSchema,
});

export const MessageSchema = z.discriminatedUnion("role", [
  UserMessageSchema,
  AssistantMessageSchema,
  SystemMessageSchema,
  DeveloperMessageSchema,
  ToolMessageSchema,
  ReasoningMessageSchema,
  ActivityMessageSchema,
]);

export const ToolSchema = z.object({
  name: z.string().min(1),
  description: z.string(),
  /** JSON Schema of the arguments. */
  parameters: optional(JsonObjectSchema),
  metadata: optional(JsonObjectSchema),
});

export const ContextSchema = z.object({ description: z.string(), value: z.string() });

/** AG-UI 1.0: the answer to an interrupt, sent on the run that continues from it. */
export const ResumeEntrySchema = z.object({
  interruptId: z.string(),
  status: z.enum(["resolved", "cancelled"]),
  payload: z.unknown().optional(),
  metadata: optional(JsonObjectSchema),
});

// Unknown top-level fields are stripped: AG-UI clients add fields across versions and the
// spec asks us to ignore them.
export const RunAgentInputSchema = z.object({
  threadId: z.string().regex(UUID_PATTERN, RUN_INPUT_ERRORS.threadId),
  runId: z
    .string()
    .min(1)
    .refine((runId) => countCodePoints(runId) <= MAX_RUN_ID_CHARS, RUN_INPUT_ERRORS.runIdLength),
  parentRunId: optional(z.string()),
  protocolVersion: optional(z.string()),
  state: z.unknown().optional(),
  messages: z.array(MessageSchema).max(MAX_MESSAGES, RUN_INPUT_ERRORS.messagesLimit),
  tools: z
    .array(ToolSchema)
    .nullish()
    .transform((tools) => tools ?? []),
  context: z
    .array(ContextSchema)
    .nullish()
    .transform((context) => context ?? []),
  forwardedProps: z.unknown().optional(),
  resume: optional(z.array(ResumeEntrySchema)),
});

/**
 * The same input as the AG-UI-native endpoint reads it: the whole conversation the client holds,
 * and a threadId that is any string (run-input-rules.ts bounds it), as AG-UI allows.
 */
export const ConversationInputSchema = RunAgentInputSchema.extend({
  threadId: z.string(),
  messages: z.array(MessageSchema).max(MAX_CONVERSATION_MESSAGES, RUN_INPUT_ERRORS.conversationMessagesLimit),
});

export type TextPart = z.infer<typeof TextPartSchema>;
export type BinaryPart = z.infer<typeof BinaryPartSchema>;
export type ImagePart = z.infer<typeof ImagePartSchema>;
export type UserContentPart = z.infer<typeof UserContentPartSchema>;
export type ToolContentPart = z.infer<typeof ToolContentPartSchema>;
export type ToolCall = z.infer<typeof ToolCallSchema>;
export type UserMessage = z.infer<typeof UserMessageSchema>;
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;
export type ToolMessage = z.infer<typeof ToolMessageSchema>;
export type Message = z.infer<typeof MessageSchema>;
export type Tool = z.infer<typeof ToolSchema>;
export type Context = z.infer<typeof ContextSchema>;
export type ResumeEntry = z.infer<typeof ResumeEntrySchema>;
export type RunAgentInput = z.infer<typeof RunAgentInputSchema> & {
  /**
   * The thread as the client named it when that name is not its id (POST /api/v1/ag-ui takes any
   * string; a name is scoped to its owner, server/threads/service/thread-names.ts). Set by the server,
   * never read from the wire: the run's events carry it as their threadId.
   */
  threadName?: string;
  /**
   * Set by the server when `state` is the state the thread kept (the request sent none): the run's
   * opening STATE_SNAPSHOT changes nothing to keep (server/thread-state/service.ts).
   */
  stateFromThread?: boolean;
};

export type ParseRunAgentInputResult = { ok: true; input: RunAgentInput } | RunInputFailure;

/**
 * Validates a POST /api/v1/agent/runs body: the size limit on the raw UTF-8 bytes, JSON,
 * the spec's table in order with its exact messages, then the full wire schema. A
 * failure is always the caller's fault (400, or 413 for size).
 */
export function parseRunAgentInput(rawBody: string, opts: { conversation?: boolean } = {}): ParseRunAgentInputResult {
  const limit = opts.conversation ? MAX_CONVERSATION_PAYLOAD_BYTES : MAX_PAYLOAD_BYTES;
  // Each UTF-16 unit is at least one UTF-8 byte, so an over-long string needs no counting.
  if (rawBody.length > limit || utf8ByteLength(rawBody) > limit) {
    return { ok: false, status: 413, message: opts.conversation ? RUN_INPUT_ERRORS.conversationTooLarge : RUN_INPUT_ERRORS.payloadTooLarge };
  }
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return { ok: false, status: 400, message: RUN_INPUT_ERRORS.invalidJson };
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { ok: false, status: 400, message: "RunAgentInput must be a JSON object" };
  }

  const ruleFailure = checkRunInputRules(body as Record<string, unknown>, opts);
  if (ruleFailure) return ruleFailure;

  const parsed = (opts.conversation ? ConversationInputSchema : RunAgentInputSchema).safeParse(body);
  if (!parsed.success) {
    const issue = firstIssue(parsed.error.issues, "indexed");
    const field = issue?.field ?? "";
    const message = issue?.message ?? "invalid RunAgentInput";
    return field === ""
      ? { ok: false, status: 400, message }
      : { ok: false, status: 400, message: `${field}: ${message}`, field };
  }
  // Shared state's own rules (state-rules.ts), after the wire schema: the spec's table says nothing of state.
  if (sendsState(parsed.data.state)) {
    const problem = stateProblem(parsed.data.state);
    if (problem) return { ok: false, status: problem.status, message: problem.message, field: "state" };
  }
  return { ok: true, input: parsed.data };
}

/** An image or a document of the user message, by the signed URL of its upload. */
export type UserImageRef = { url: string; mimeType: string; filename?: string };
/** `fromUser` is false for a run that only answers frontend tool calls or interrupts: no text, the first answer's id. */
/** `regenerate`: the run brings nothing, it answers the thread's last question again (docs/branches.md). */
export type UserMessageParts = { messageId: string; text: string; images: UserImageRef[]; fromUser: boolean; regenerate?: boolean };

/**
 * The run's user message as the agent consumes it: its text (text parts concatenated,
 * the same text the length rule measured) and its images, in order, whichever of the two
 * wire forms carried them. A run of an AG-UI client that holds the conversation may bring
 * only tool answers (POST /api/v1/ag-ui); it has no user message.
 */
export function userMessageParts(input: RunAgentInput): UserMessageParts {
  const message = input.messages.find((candidate) => candidate.role === "user");
  if (!message) {
    const answer = input.messages.find((candidate) => candidate.role === "tool");
    if (answer) return { messageId: answer.id, text: "", images: [], fromUser: false };
    // A run that continues from an interrupt may bring nothing but the answers to it.
    if (input.resume?.length) return { messageId: `resume_${input.runId}`, text: "", images: [], fromUser: false };
    // A regenerated answer (docs/branches.md) brings nothing: the model answers the thread's question again.
    if (input.messages.length === 0) return { messageId: `regenerate_${input.runId}`, text: "", images: [], fromUser: false, regenerate: true };
    throw new Error("RunAgentInput has no user message; parse it with parseRunAgentInput first");
  }
  const images: UserImageRef[] = [];
  if (Array.isArray(message.content)) {
    for (const part of message.content) {
      if (part.type === "binary") {
        images.push(
          part.filename === undefined
            ? { url: part.url, mimeType: part.mimeType }
            : { url: part.url, mimeType: part.mimeType, filename: part.filename },
        );
      } else if (part.type === "image" || part.type === "document") {
        images.push({ url: part.source.value, mimeType: part.source.mimeType });
      }
    }
  }
  return { messageId: message.id, text: contentText(message.content), images, fromUser: true };
}
