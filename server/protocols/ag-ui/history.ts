import { z } from "zod";
import { uiSchemaDocumentSchema } from "../../ui-schema/schema";
import { BranchPointSchema } from "../threads/branches";

// GET /api/v1/agent/history: HistorySnapshotResponse of spec/agent-run-input.md, the one schema
// of a history message. Two writers produce it: PostgreSQL renders a message when it is written
// (prisma/sql/functions/dispatch_history_json.sql), and the server renders the two kinds it
// cannot on each read (server/threads/service/history.ts): tool results, whose cards it compiles,
// user messages with attachments, whose URLs it signs afresh, and the model's reasoning. Both are tested against this schema.
// Dispatch adds `attachments` to user messages (every attachment; `url` is the first one's).

const messageFields = {
  /** The protocol message id (AG-UI messageId). */
  id: z.string(),
  /** The message's place in its thread. */
  seq: z.int().nonnegative(),
  content: z.string(),
  /** When the message was written, in UTC with milliseconds. */
  timestamp: z.iso.datetime({ precision: 3 }),
};

export const historyAttachmentSchema = z.strictObject({
  bucket: z.string().min(1),
  path: z.string().min(1),
  mime_type: z.string().min(1),
  /** A document's name as it was uploaded (images have none). */
  file_name: z.string().optional(),
  /** A document's size in bytes. */
  size: z.number().int().optional(),
  /** A signed URL, fresh on every read. */
  url: z.url(),
});

export const historyUserMessageSchema = z.strictObject({
  ...messageFields,
  role: z.literal("user"),
  /** The first attachment's signed URL, or null. */
  url: z.url().nullable(),
  attachments: z.array(historyAttachmentSchema),
});

/** A call that waits for a person's approval (docs/approvals.md): the request and what can be done with it. */
export const historyApprovalSchema = z.strictObject({
  id: z.string(),
  status: z.enum(["pending", "approved", "denied", "expired", "superseded"]),
  toolCallId: z.string(),
  /** module.method */
  action: z.string(),
  input: z.unknown(),
  expiresAt: z.iso.datetime(),
  actions: z.array(z.enum(["approve", "edit", "deny"])),
  decidedAt: z.iso.datetime().nullable(),
  reason: z.string().nullable(),
});

export const historyToolMessageSchema = z.strictObject({
  ...messageFields,
  role: z.literal("tool"),
  /** The card compiled from the result's tool_agent_output.ui_hints, as TOOL_CALL_RESULT sent it; or the approval card. */
  uiSchema: uiSchemaDocumentSchema.nullable(),
  /** Present while the call waits for approval: POST /api/v1/agent/interrupts/{approval.id} answers it. */
  approval: historyApprovalSchema.optional(),
});

export const historyAssistantMessageSchema = z.strictObject({
  ...messageFields,
  role: z.literal("assistant"),
  uiSchema: uiSchemaDocumentSchema.nullable(),
});

/** The model's thinking before the answer or tool call that follows it (REASONING_* events). */
export const historyReasoningMessageSchema = z.strictObject({
  ...messageFields,
  role: z.literal("reasoning"),
  /** How long the model thought, from its first thought to its last; null when not known. */
  durationMs: z.int().nonnegative().nullable(),
});

export const historyMessageSchema = z.discriminatedUnion("role", [historyUserMessageSchema, historyReasoningMessageSchema, historyToolMessageSchema, historyAssistantMessageSchema]);

export const historySnapshotSchema = z.strictObject({
  scope: z.literal("history_day"),
  /** The thread shown, or null when the caller has none. */
  threadId: z.string().nullable(),
  /** The UTC day shown (YYYY-MM-DD), or null when the thread has no message before `before`. */
  day: z.iso.date().nullable(),
  /** Whether the thread has messages before this day. */
  hasMore: z.boolean(),
  /** The thread's AG-UI shared state as its last run left it (docs/ag-ui.md, "Shared state"); absent when it keeps none. */
  state: z.record(z.string(), z.unknown()).optional(),
  /**
   * The day's messages of the current branch that have siblings (other branches start beside them:
   * a regenerated answer, an edited message), docs/branches.md; absent when there are none.
   */
  branches: z.array(BranchPointSchema).optional(),
  messages: z.array(historyMessageSchema),
});

export type HistoryMessage = z.infer<typeof historyMessageSchema>;
export type HistorySnapshot = z.infer<typeof historySnapshotSchema>;
