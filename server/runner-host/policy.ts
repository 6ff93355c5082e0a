// A binding's resource policy and the run's frozen authorization. The authorization is what
// the runner may touch during one run: manifest permissions ∩ binding policy ∩ what exists,
// computed once when the run is accepted and persisted with it (runs.authorization), so a
// later change to the binding never widens a run in flight.
import { z } from "zod";
import { STATE_SCOPES } from "../protocols/runner/context";
import { hostApiOperations, STORAGE_AREAS } from "../protocols/runner/host-api";
import { permissionsSchema, type AgentRunnerPermissions } from "../protocols/runner/manifest";

const ops = <T extends readonly [string, ...string[]]>(values: T) => z.array(z.enum(values)).max(16).optional();
// The operation names come from the host-API table, so a new action's operation is
// grantable (and restrictable) here without naming it again.

/** Admin-written policy; an omitted group allows what the manifest asks for, except where noted. */
export const bindingPolicySchema = z.strictObject({
  models: z.strictObject({ operations: ops(hostApiOperations("models")), model_ids: z.array(z.string().min(1)).max(50).optional() }).optional(),
  tools: z.strictObject({ operations: ops(hostApiOperations("tools")), names: z.array(z.string().min(1)).max(50).optional() }).optional(),
  knowledge_bases: z
    .strictObject({ operations: ops(hostApiOperations("knowledge_bases")), ids: z.array(z.uuid()).max(100).optional() })
    .optional(),
  history: z
    .strictObject({
      operations: ops(hostApiOperations("history")),
      // Other conversations this binding may read; the run's own is always readable. Default none.
      extra_conversation_ids: z.array(z.uuid()).max(100).optional(),
    })
    .optional(),
  events: z.strictObject({ operations: ops(hostApiOperations("events")) }).optional(),
  artifacts: z.strictObject({ operations: ops(hostApiOperations("artifacts")) }).optional(),
  storage: z.strictObject({ areas: ops(STORAGE_AREAS) }).optional(),
  state: z.strictObject({ scopes: ops(STATE_SCOPES) }).optional(),
  // Platform actions are refused unless listed here (and in the manifest). Default none.
  platform_api: z.strictObject({ actions: z.array(z.string().min(1).max(100)).max(50).default([]) }).optional(),
  // Host API calls per minute for one run of this binding.
  rate_per_minute: z.int().min(1).max(100_000).optional(),
  // A shorter deadline than RUN_DEADLINE_SECONDS for this binding's runs.
  deadline_seconds: z.int().min(1).max(86_400).optional(),
});
export type BindingPolicy = z.infer<typeof bindingPolicySchema>;

export const DEFAULT_RATE_PER_MINUTE = 600;
/** Largest request body the host API accepts from a runner. */
export const MAX_API_PAYLOAD_BYTES = 1_048_576;

export type RunAuthorization = {
  version: 1;
  runner_id: string;
  /** The external endpoint whose secret may call the host API for this run; null for in-process runners. */
  endpoint_id: string | null;
  binding_id: string | null;
  conversation_id: string;
  actor_id: string;
  event_id: string;
  models: { operations: AgentRunnerPermissions["models"]; model_ids: string[] };
  tools: { operations: AgentRunnerPermissions["tools"]; names: string[] };
  knowledge_bases: { operations: AgentRunnerPermissions["knowledge_bases"]; ids: string[] };
  history: { operations: AgentRunnerPermissions["history"]; conversation_ids: string[] };
  events: { operations: AgentRunnerPermissions["events"] };
  artifacts: { operations: AgentRunnerPermissions["artifacts"] };
  storage: { areas: AgentRunnerPermissions["storage"] };
  /** State needs a binding to key it by; without one, no scope is granted. */
  state: { scopes: (typeof STATE_SCOPES)[number][] };
  platform_api: { actions: string[] };
  limits: { rate_per_minute: number; max_payload_bytes: number };
};

const intersect = <T extends string>(asked: readonly T[], allowed: readonly string[] | undefined): T[] =>
  allowed === undefined ? [...new Set(asked)] : [...new Set(asked)].filter((x) => allowed.includes(x));

const within = (available: readonly string[], allowed: readonly string[] | undefined): string[] =>
  allowed === undefined ? [...available] : available.filter((x) => allowed.includes(x));

/**
 * manifest permissions ∩ binding policy ∩ what this host has. Pure, so the rules can be
 * read and tested in one place.
 */
export function computeAuthorization(opts: {
  runnerId: string;
  endpointId: string | null;
  bindingId: string | null;
  conversationId: string;
  actorId: string;
  eventId: string;
  permissions: AgentRunnerPermissions;
  policy: BindingPolicy;
  available: { modelIds: string[]; toolNames: string[]; knowledgeBaseIds: string[] };
}): RunAuthorization {
  const { permissions: p, policy } = opts;
  const perms = permissionsSchema.parse(p);
  return {
    version: 1,
    runner_id: opts.runnerId,
    endpoint_id: opts.endpointId,
    binding_id: opts.bindingId,
    conversation_id: opts.conversationId,
    actor_id: opts.actorId,
    event_id: opts.eventId,
    models: { operations: intersect(perms.models, policy.models?.operations), model_ids: within(opts.available.modelIds, policy.models?.model_ids) },
    tools: { operations: intersect(perms.tools, policy.tools?.operations), names: within(opts.available.toolNames, policy.tools?.names) },
    knowledge_bases: {
      operations: intersect(perms.knowledge_bases, policy.knowledge_bases?.operations),
      ids: within(opts.available.knowledgeBaseIds, policy.knowledge_bases?.ids),
    },
    history: {
      operations: intersect(perms.history, policy.history?.operations),
      conversation_ids: [opts.conversationId, ...(policy.history?.extra_conversation_ids ?? []).filter((id) => id !== opts.conversationId)],
    },
    events: { operations: intersect(perms.events, policy.events?.operations) },
    artifacts: { operations: intersect(perms.artifacts, policy.artifacts?.operations) },
    storage: { areas: intersect(perms.storage, policy.storage?.areas).filter((a) => a !== "binding" || opts.bindingId !== null) },
    state: { scopes: opts.bindingId === null ? [] : intersect(STATE_SCOPES, policy.state?.scopes) },
    platform_api: { actions: intersect(perms.platform_api, policy.platform_api?.actions ?? []) },
    limits: { rate_per_minute: policy.rate_per_minute ?? DEFAULT_RATE_PER_MINUTE, max_payload_bytes: MAX_API_PAYLOAD_BYTES },
  };
}
