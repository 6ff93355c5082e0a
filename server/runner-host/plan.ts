import "server-only";
import { listModels } from "../models/catalog";
import { AppError } from "../kernel/errors";
import { listKnowledgeBaseNames } from "../knowledge/repository/knowledge-bases";
import { userMessageParts, type RunAgentInput } from "../protocols/ag-ui/run-input";
import type { AgentRunnerManifest } from "../protocols/runner/manifest";
import { PROJECT_CLI_TOOL_NAME } from "../tools/project-cli/tool";
import { bindingFromSnapshot, type BindingCheck } from "./binding-snapshot";
import { BUILTIN_MANIFEST, ensureBuiltinRunner, isBuiltinRunner } from "./builtin";
import { entryEventId, type EntryEvent } from "./entry-events";
import { computeAuthorization, type RunAuthorization } from "./policy";
import { findEffectiveBinding, findEndpoint, findRunner, type BindingRow, type EndpointRow } from "./repository/runners";
import { findChosenBinding } from "./repository/agent-choices";

// Which runner answers an entry event, and with what: the binding (narrowest scope wins, the
// built-in agent when none), the entry event as the EventLog records it, and the run's
// authorization, frozen before the run is accepted.

export const MESSAGE_RECEIVED = "message.received";

export type RunPlan = {
  runnerId: string;
  manifest: AgentRunnerManifest;
  binding: BindingRow | null;
  endpoint: EndpointRow | null;
  entry: EntryEvent;
  authorization: RunAuthorization;
  /** Names of the knowledge bases the authorization grants, by id. */
  knowledgeBaseNames: Map<string, string>;
  /** Set when the binding came from this process's copy: acceptRun has the database confirm it. */
  bindingCheck: BindingCheck | null;
};

const SOURCE_EVENT_TYPES: Record<string, string> = { "ag-ui": "RunAgentInput", "agent-api": "AgentRequest" };

/**
 * The agent the client picked among the user's bindings (forwardedProps.agent, a binding id, as the
 * chat's agent picker sends it); undefined for the host's own choice.
 */
function chosenAgent(input: RunAgentInput): string | undefined {
  const props = input.forwardedProps;
  if (!props || typeof props !== "object" || !("agent" in props)) return undefined;
  const agent = (props as { agent?: unknown }).agent;
  if (agent === undefined || agent === null) return undefined;
  if (typeof agent !== "string" || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(agent)) throw new AppError("BAD_REQUEST", "forwardedProps.agent must be the id of an agent binding", { field: "forwardedProps.agent" });
  return agent;
}

async function chosenBinding(q: { bindingId: string; userId: string; threadId: string; eventType: string }): Promise<BindingRow> {
  const binding = await findChosenBinding(q);
  if (!binding) throw new AppError("BAD_REQUEST", "forwardedProps.agent names no agent bound for you; list yours with runners.mine", { field: "forwardedProps.agent" });
  return binding;
}

/** `fresh` reads the binding from the database instead of this process's copy of the bindings. */
export async function planRun(opts: { userId: string; input: RunAgentInput; protocol: string; fresh?: boolean }): Promise<RunPlan> {
  await ensureBuiltinRunner();
  const query = { userId: opts.userId, threadId: opts.input.threadId, eventType: MESSAGE_RECEIVED };
  const chosenId = chosenAgent(opts.input);
  // A chosen agent is read from the database; the accept step then has no cached plan to check.
  const cached = opts.fresh || chosenId ? null : await bindingFromSnapshot(query);
  const binding = chosenId ? await chosenBinding({ ...query, bindingId: chosenId }) : cached ? cached.binding : await findEffectiveBinding(query);
  let manifest = BUILTIN_MANIFEST;
  let endpoint: EndpointRow | null = null;
  if (binding && !isBuiltinRunner(binding.runnerId)) {
    const runner = await findRunner({ id: binding.runnerId });
    endpoint = runner?.endpointId ? await findEndpoint({ id: runner.endpointId }) : null;
    if (!runner || !endpoint) throw new AppError("SERVICE_UNAVAILABLE", `The runner bound to this conversation (${binding.runnerId}) is not registered any more`);
    manifest = runner.manifest;
  }
  const user = userMessageParts(opts.input);
  const bases = manifest.permissions.knowledge_bases.length > 0 ? await listKnowledgeBaseNames({ limit: 100 }) : [];
  const entry: EntryEvent = {
    id: entryEventId({ threadId: opts.input.threadId, messageId: user.messageId }),
    eventType: MESSAGE_RECEIVED,
    source: opts.protocol,
    sourceEventType: SOURCE_EVENT_TYPES[opts.protocol] ?? null,
    data: { message_id: user.messageId, text_bytes: Buffer.byteLength(user.text, "utf8"), attachment_count: user.images.length },
    // The full request stays with the run (runs.input); the event names it instead of copying it.
    rawRef: { kind: "run_input", id: opts.input.runId },
  };
  const authorization = computeAuthorization({
    runnerId: manifest.id,
    endpointId: endpoint?.id ?? null,
    bindingId: binding?.id ?? null,
    conversationId: opts.input.threadId,
    actorId: opts.userId,
    eventId: entry.id,
    permissions: manifest.permissions,
    policy: binding?.policy ?? {},
    available: {
      modelIds: listModels().map((m) => m.id),
      toolNames: [PROJECT_CLI_TOOL_NAME],
      knowledgeBaseIds: bases.map((b) => b.id),
    },
  });
  return {
    runnerId: manifest.id,
    manifest,
    binding,
    endpoint,
    entry,
    authorization,
    knowledgeBaseNames: new Map(bases.map((b) => [b.id, b.name])),
    bindingCheck: cached?.check ?? null,
  };
}
