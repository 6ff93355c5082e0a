import { z } from "zod";

// What the Agent API streams and answers (spec/agent-api-protocol.md): content parts,
// messages and responses, each an "object" with a status. Streamed objects carry a
// `sequence_number` (0, 1, 2, ... with no gap); the non-streaming answer is the final
// response alone, without one.

export const RUN_STATUSES = ["created", "in_progress", "completed", "canceled", "failed", "rejected", "incomplete", "unknown"] as const;

const sequenceNumber = { sequence_number: z.int().min(0).optional() };

export const ResponseErrorSchema = z.strictObject({ code: z.string(), message: z.string() });

const contentBase = {
  ...sequenceNumber,
  object: z.literal("content"),
  index: z.int().min(0),
  delta: z.boolean(),
  msg_id: z.string(),
  status: z.enum(["in_progress", "completed"]),
};

export const TextContentSchema = z.strictObject({ ...contentBase, type: z.literal("text"), text: z.string() });

/** `{call_id, name, arguments}` on a function_call, `{call_id, name, output}` on its output. */
export const DataContentSchema = z.strictObject({ ...contentBase, type: z.literal("data"), data: z.record(z.string(), z.unknown()) });

export const ContentSchema = z.discriminatedUnion("type", [TextContentSchema, DataContentSchema]);

export const MessageSchema = z.strictObject({
  ...sequenceNumber,
  object: z.literal("message"),
  id: z.string(),
  type: z.enum(["message", "reasoning", "function_call", "function_call_output", "mcp_approval_request", "mcp_list_tools", "mcp_call"]),
  role: z.enum(["assistant", "user", "system", "tool"]),
  status: z.enum(["created", "in_progress", "completed"]),
  content: z.array(ContentSchema),
});

/**
 * A keep-alive during long silences: a message of the spec's type `heartbeat`, complete in
 * itself. It is never part of a response's output.
 */
export const HeartbeatSchema = z.strictObject({
  ...sequenceNumber,
  object: z.literal("message"),
  id: z.string(),
  type: z.literal("heartbeat"),
  status: z.literal("completed"),
});

/** Why a response ended in failed or rejected: the spec's message type `error`, just before the terminal response. Never part of output. */
export const ErrorMessageSchema = z.strictObject({
  ...sequenceNumber,
  object: z.literal("message"),
  id: z.string(),
  type: z.literal("error"),
  status: z.literal("completed"),
  code: z.string(),
  message: z.string(),
});

export const UsageSchema = z.strictObject({ input_tokens: z.int(), output_tokens: z.int(), total_tokens: z.int() });

export const AgentResponseSchema = z.strictObject({
  ...sequenceNumber,
  object: z.literal("response"),
  id: z.string(),
  status: z.enum(RUN_STATUSES),
  session_id: z.string(),
  /** Unix seconds, as the reference server writes them. */
  created_at: z.int(),
  completed_at: z.int().nullable(),
  output: z.array(MessageSchema),
  usage: UsageSchema.nullable(),
  error: ResponseErrorSchema.nullable(),
});

export const StreamObjectSchema = z.union([AgentResponseSchema, MessageSchema, HeartbeatSchema, ErrorMessageSchema, ContentSchema]);

export type RunStatus = (typeof RUN_STATUSES)[number];
export type TextContent = z.infer<typeof TextContentSchema>;
export type DataContent = z.infer<typeof DataContentSchema>;
export type Content = z.infer<typeof ContentSchema>;
export type Message = z.infer<typeof MessageSchema>;
export type Heartbeat = z.infer<typeof HeartbeatSchema>;
export type ErrorMessage = z.infer<typeof ErrorMessageSchema>;
export type Usage = z.infer<typeof UsageSchema>;
export type AgentResponse = z.infer<typeof AgentResponseSchema>;
export type StreamObject = z.infer<typeof StreamObjectSchema>;
