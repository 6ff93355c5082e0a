// AgentRunContext and AgentRunRequest (spec/agent-runner-protocol.md §4-5): what the host
// sends a runner for one run. The host builds these; runners (and the SDK) parse them
// leniently so a newer host can add fields without breaking older runners.
import { z } from "zod";

const record = z.record(z.string(), z.unknown());

export const artifactRefSchema = z.object({
  artifact_id: z.string(),
  name: z.string().nullish(),
  mime_type: z.string(),
  size: z.int(),
  sha256: z.string().nullish(),
  expires_at: z.number().nullish(),
});
export type ArtifactRef = z.infer<typeof artifactRefSchema>;

export const contentElementSchema = z.union([
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("artifact"), artifact: artifactRefSchema }),
]);
export type ContentElement = z.infer<typeof contentElementSchema>;

/** The run protocol, entry event source and trigger source of a run a schedule started (docs/schedules.md). */
export const SCHEDULER_SOURCE = "scheduler";

export const triggerSchema = z.object({
  type: z.string(),
  source: z.enum(["platform", "webui", "api", "scheduler", "system", "pipeline_adapter"]),
  timestamp: z.number().nullish(),
});

export const rawEventRefSchema = z.object({ kind: z.string(), id: z.string(), size: z.int().nullish() });

export const eventContextSchema = z.object({
  event_id: z.string(),
  event_type: z.string(),
  event_time: z.number().nullish(),
  source: z.string(),
  source_event_type: z.string().nullish(),
  raw_ref: rawEventRefSchema.nullish(),
  data: record.default({}),
});
export type AgentEventContext = z.infer<typeof eventContextSchema>;

export const conversationContextSchema = z.object({
  conversation_id: z.string().nullish(),
  thread_id: z.string().nullish(),
  launcher_type: z.string().nullish(),
  launcher_id: z.string().nullish(),
  bot_id: z.string().nullish(),
  workspace_id: z.string().nullish(),
});

export const actorContextSchema = z.object({
  actor_type: z.string(),
  actor_id: z.string().nullish(),
  actor_name: z.string().nullish(),
  metadata: record.default({}),
});

export const subjectContextSchema = z.object({
  subject_type: z.string(),
  subject_id: z.string().nullish(),
  data: record.default({}),
});

export const agentInputSchema = z.object({
  text: z.string().nullish(),
  contents: z.array(contentElementSchema).default([]),
  attachments: z.array(artifactRefSchema).default([]),
  message_chain: record.nullish(),
});

export const deliveryContextSchema = z.object({
  surface: z.string(),
  reply_target: record.nullish(),
  supports_streaming: z.boolean().default(false),
  supports_edit: z.boolean().default(false),
  supports_reaction: z.boolean().default(false),
  max_message_size: z.int().nullish(),
  platform_capabilities: record.default({}),
});

export const modelResourceSchema = z.object({
  model_id: z.string(),
  provider: z.string(),
  operations: z.array(z.string()),
  /** The model this run's request chose (or the host's default): the one to call unless the runner knows better. */
  selected: z.boolean().default(false),
});
export const toolResourceSchema = z.object({ tool_name: z.string(), description: z.string(), operations: z.array(z.string()) });
export const knowledgeBaseResourceSchema = z.object({ kb_id: z.string(), name: z.string(), operations: z.array(z.string()) });
export const artifactResourceSchema = z.object({ artifact_id: z.string(), operations: z.array(z.string()) });
export const storageResourceSchema = z.object({ areas: z.array(z.string()).default([]) });
export const historyResourceSchema = z.object({
  operations: z.array(z.string()).default([]),
  conversation_ids: z.array(z.string()).default([]),
});

export const resourcesSchema = z.object({
  models: z.array(modelResourceSchema).default([]),
  tools: z.array(toolResourceSchema).default([]),
  knowledge_bases: z.array(knowledgeBaseResourceSchema).default([]),
  artifacts: z.array(artifactResourceSchema).default([]),
  storage: storageResourceSchema.default({ areas: [] }),
  history: historyResourceSchema.default({ operations: [], conversation_ids: [] }),
  events: z.object({ operations: z.array(z.string()).default([]) }).default({ operations: [] }),
  state: z.object({ scopes: z.array(z.string()).default([]) }).default({ scopes: [] }),
  platform_capabilities: record.default({}),
});
export type AgentResources = z.infer<typeof resourcesSchema>;

export const contextAccessSchema = z.object({
  conversation_id: z.string().nullish(),
  thread_id: z.string().nullish(),
  latest_cursor: z.string().nullish(),
  event_seq: z.int().nullish(),
  transcript_seq: z.int().nullish(),
  has_history_before: z.boolean().default(false),
  inline_policy: z.object({
    mode: z.enum(["none", "current_event", "recent_tail", "summary_tail"]),
    delivered_count: z.int().default(0),
    source_total_count: z.int().nullish(),
    messages_complete: z.boolean().default(false),
    reason: z.string().nullish(),
  }),
  available_apis: z.object({
    history_page: z.boolean().default(false),
    history_search: z.boolean().default(false),
    event_get: z.boolean().default(false),
    event_page: z.boolean().default(false),
    artifact_metadata: z.boolean().default(false),
    artifact_read: z.boolean().default(false),
    state: z.boolean().default(false),
    storage: z.boolean().default(false),
  }),
});

export const runStateSchema = z.object({
  conversation: record.default({}),
  actor: record.default({}),
  subject: record.default({}),
  runner: record.default({}),
  binding: record.default({}),
});
export const STATE_SCOPES = ["conversation", "actor", "subject", "runner", "binding"] as const;
export type StateScope = (typeof STATE_SCOPES)[number];

export const runtimeContextSchema = z.object({
  host: z.string().default("dispatch"),
  langbot_version: z.string().nullish(),
  trace_id: z.string(),
  deadline_at: z.number().nullish(),
  locale: z.string().nullish(),
  timezone: z.string().nullish(),
  static_refs: record.default({}),
  metadata: record.default({}),
});

export const bootstrapMessageSchema = z.object({
  role: z.enum(["user", "assistant", "tool", "system"]),
  content: z.string(),
  seq: z.int().nullish(),
});

export const bootstrapContextSchema = z.object({
  messages: z.array(bootstrapMessageSchema).default([]),
  summary: z.string().nullish(),
  artifacts: z.array(artifactRefSchema).default([]),
  metadata: record.default({}),
});

export const runContextSchema = z.object({
  run_id: z.string(),
  trigger: triggerSchema,
  event: eventContextSchema,
  conversation: conversationContextSchema.nullish(),
  actor: actorContextSchema.nullish(),
  subject: subjectContextSchema.nullish(),
  input: agentInputSchema,
  delivery: deliveryContextSchema,
  resources: resourcesSchema,
  context: contextAccessSchema,
  state: runStateSchema,
  runtime: runtimeContextSchema,
  config: record.default({}),
  bootstrap: bootstrapContextSchema.nullish(),
  adapter: record.nullish(),
  metadata: record.default({}),
});
export type AgentRunContext = z.infer<typeof runContextSchema>;

export const runRequestSchema = z.object({ runner_id: z.string(), runner_name: z.string(), context: runContextSchema });
export type AgentRunRequest = z.infer<typeof runRequestSchema>;
