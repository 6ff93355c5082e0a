// AgentRunResult (spec/agent-runner-protocol.md §6): one line of a runner's NDJSON answer.
// The envelope is checked for every result; known types also get their `data` checked.
import { z } from "zod";
import { STATE_SCOPES } from "./context";

/** A result line larger than this is refused (issue #8). */
export const MAX_RESULT_BYTES = 1_048_576;
/** A state value larger than this is refused (issue #8). */
export const MAX_STATE_VALUE_BYTES = 256 * 1024;

export const resultEnvelopeSchema = z.object({
  run_id: z.string().min(1),
  type: z.string().min(1).max(100),
  data: z.record(z.string(), z.unknown()).default({}),
  sequence: z.int().min(0).nullish(),
  timestamp: z.number().nullish(),
});
export type AgentRunResult = z.infer<typeof resultEnvelopeSchema>;

const textContent = z.union([
  z.string(),
  z.array(z.object({ type: z.literal("text"), text: z.string() })).transform((parts) => parts.map((p) => p.text).join("")),
]);

const toolCallId = z.string().min(1).max(200);
const resultUsage = z
  .object({ input_tokens: z.int().min(0).default(0), output_tokens: z.int().min(0).default(0), total_tokens: z.int().min(0).nullish() })
  .nullish();
const toolName = z.string().min(1).max(200);

export const RESULT_DATA_SCHEMAS = {
  "message.delta": z.object({
    chunk: z.object({ role: z.literal("assistant").default("assistant"), content: textContent, id: z.string().max(200).nullish() }),
  }),
  "message.completed": z.object({
    message: z.object({ role: z.literal("assistant").default("assistant"), content: textContent.nullish(), id: z.string().max(200).nullish() }),
  }),
  "tool.call.started": z.object({
    tool_call_id: toolCallId,
    tool_name: toolName,
    parameters: z.record(z.string(), z.unknown()).default({}),
  }),
  "tool.call.completed": z.object({
    tool_call_id: toolCallId,
    tool_name: toolName.nullish(),
    result: z.unknown().optional(),
    error: z.string().max(10_000).nullish(),
  }),
  "artifact.created": z
    .object({
      name: z.string().min(1).max(255).nullish(),
      mime_type: z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, "must be a MIME type such as text/plain"),
      content_base64: z.base64().nullish(),
      text: z.string().nullish(),
      expires_in_seconds: z.int().min(60).max(90 * 24 * 3600).nullish(),
    })
    .refine((d) => (d.content_base64 == null) !== (d.text == null), "give exactly one of content_base64 or text"),
  "state.updated": z.object({
    scope: z.enum(STATE_SCOPES),
    key: z.string().min(1).max(200).regex(/^[\w.:/-]+$/, "must use letters, digits and . _ : / -"),
    value: z.unknown(),
  }),
  "action.requested": z.object({
    action: z.string().min(1).max(100),
    target: z.record(z.string(), z.unknown()).default({}),
    payload: z.record(z.string(), z.unknown()).default({}),
  }),
  "run.completed": z.object({
    message: z.object({ role: z.literal("assistant").default("assistant"), content: textContent.nullish() }).nullish(),
    finish_reason: z.string().max(100).nullish(),
    usage: resultUsage,
  }),
  "run.failed": z.object({
    code: z.string().min(1).max(100),
    message: z.string().max(2000).default(""),
    retryable: z.boolean().default(false),
    /** What the run used before it failed (the host records it with the failure). */
    usage: resultUsage,
  }),
} as const;

export type KnownResultType = keyof typeof RESULT_DATA_SCHEMAS;
export type ResultData<T extends KnownResultType> = z.infer<(typeof RESULT_DATA_SCHEMAS)[T]>;
export const TERMINAL_RESULT_TYPES: ReadonlySet<string> = new Set(["run.completed", "run.failed"]);

export function isKnownResultType(type: string): type is KnownResultType {
  return Object.hasOwn(RESULT_DATA_SCHEMAS, type);
}
