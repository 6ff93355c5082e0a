// AgentRunnerManifest and its parts (spec/agent-runner-protocol.md §3), as strict zod schemas:
// a runner that sends a key the protocol does not know is told so, not silently half-read.
import { z } from "zod";
import { hostApiOperations, STORAGE_AREAS } from "./host-api";

/** `plugin:author/name/runner`: stable, what bindings and the host API name a runner by. */
export const RUNNER_ID_PATTERN = /^plugin:[A-Za-z0-9][\w.-]{0,63}\/[A-Za-z0-9][\w.-]{0,63}\/[A-Za-z0-9][\w.-]{0,63}$/;

export const runnerIdSchema = z
  .string()
  .regex(RUNNER_ID_PATTERN, "must look like plugin:author/name/runner (letters, digits, '.', '_' or '-' in each part)");

/** Text in several languages, by locale (`en_US`, `zh_Hans`...). */
export const i18nObjectSchema = z
  .record(z.string().min(2).max(16), z.string().max(2000))
  .refine((v) => Object.keys(v).length > 0, "needs at least one locale");
export type I18nObject = z.infer<typeof i18nObjectSchema>;

export const FORM_ITEM_TYPES = ["string", "text", "secret", "integer", "number", "boolean", "select", "json"] as const;

/** One field of a binding's config form. */
export const dynamicFormItemSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z_][\w.-]{0,63}$/, "must be an identifier (letters, digits, '_', '.', '-')"),
  label: i18nObjectSchema,
  description: i18nObjectSchema.optional(),
  type: z.enum(FORM_ITEM_TYPES),
  required: z.boolean().default(false),
  default: z.unknown().optional(),
  options: z.array(z.strictObject({ name: z.string().min(1).max(200), label: i18nObjectSchema })).max(200).optional(),
});
export type DynamicFormItem = z.infer<typeof dynamicFormItemSchema>;

export const capabilitiesSchema = z.strictObject({
  streaming: z.boolean().default(false),
  tool_calling: z.boolean().default(false),
  knowledge_retrieval: z.boolean().default(false),
  multimodal_input: z.boolean().default(false),
  event_context: z.boolean().default(true),
  platform_api: z.boolean().default(false),
  interrupt: z.boolean().default(false),
  stateful_session: z.boolean().default(false),
  self_managed_context: z.boolean().default(true),
});
export type AgentRunnerCapabilities = z.infer<typeof capabilitiesSchema>;

const uniqueList = <T extends z.ZodType<string>>(item: T) => z.array(item).max(64).default([]);

export const permissionsSchema = z.strictObject({
  models: uniqueList(z.enum(hostApiOperations("models"))),
  tools: uniqueList(z.enum(hostApiOperations("tools"))),
  knowledge_bases: uniqueList(z.enum(hostApiOperations("knowledge_bases"))),
  history: uniqueList(z.enum(hostApiOperations("history"))),
  events: uniqueList(z.enum(hostApiOperations("events"))),
  artifacts: uniqueList(z.enum(hostApiOperations("artifacts"))),
  storage: uniqueList(z.enum(STORAGE_AREAS)),
  platform_api: uniqueList(z.string().regex(/^[a-z][a-z0-9_.-]{0,63}$/, "must be an action name such as message.edit")),
});
export type AgentRunnerPermissions = z.infer<typeof permissionsSchema>;
export const PERMISSION_GROUPS = Object.keys(permissionsSchema.shape) as (keyof AgentRunnerPermissions)[];

export const contextPolicySchema = z.strictObject({
  ownership: z.enum(["self_managed", "host_bootstrap", "hybrid"]).default("self_managed"),
  bootstrap: z.enum(["none", "current_event", "recent_tail", "summary_tail"]).default("current_event"),
  max_inline_events: z.int().min(0).max(1000).default(0),
  max_inline_bytes: z.int().min(0).max(1_048_576).default(0),
  supports_history_pull: z.boolean().default(true),
  supports_history_search: z.boolean().default(false),
  supports_artifact_pull: z.boolean().default(true),
  owns_compaction: z.boolean().default(true),
  wants_static_context_refs: z.boolean().default(true),
});
export type AgentRunnerContextPolicy = z.infer<typeof contextPolicySchema>;

export const manifestSchema = z.strictObject({
  id: runnerIdSchema,
  name: z.string().regex(/^[A-Za-z0-9][\w.-]{0,63}$/, "must be the runner's short name, such as default"),
  label: i18nObjectSchema,
  description: i18nObjectSchema.nullish(),
  capabilities: capabilitiesSchema,
  permissions: permissionsSchema,
  context: contextPolicySchema,
  config_schema: z.array(dynamicFormItemSchema).max(100).default([]),
  metadata: z.record(z.string(), z.unknown()).default({}),
});
export type AgentRunnerManifest = z.infer<typeof manifestSchema>;
/** What a runner author writes: every field with a default may be left out. */
export type AgentRunnerManifestInput = z.input<typeof manifestSchema>;

/** The runners list is read leniently so one bad manifest cannot hide the others. */
export const listRunnersResponseSchema = z.object({ runners: z.array(z.unknown()).max(100) });
export type ListAgentRunnersResponse = { runners: AgentRunnerManifestInput[] };

/** Readable one-line reason from a zod error, naming the field path. */
export function describeIssues(error: z.ZodError, limit = 3): string {
  return error.issues
    .slice(0, limit)
    .map((i) => `${i.path.length ? i.path.join(".") : "(root)"}: ${i.message}`)
    .join("; ");
}
