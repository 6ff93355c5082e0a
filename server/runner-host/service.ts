import "server-only";
import { AppError } from "../kernel/errors";
import { listRunApiCalls, listRunnerResults } from "./repository/audit";
import { refusedCallCounts } from "./api/refusals";
import { BUILTIN_MANIFEST, ensureBuiltinRunner } from "./builtin";
import { changeBinding, createBinding, maskedConfig } from "./bindings";
import { refreshRunnerEndpoint, registerRunnerEndpoint, type DiscoveryOutcome } from "./discovery";
import { dropBindingSnapshot } from "./binding-snapshot";
import { deleteBinding, deleteEndpoint, listBindings, listEndpoints, listRunners } from "./repository/runners";
import { listAgentChoices } from "./repository/agent-choices";
import { MESSAGE_RECEIVED } from "./plan";
import { agentOptionsOf, registerAgUiAgent, type AgUiAgentInput } from "./ag-ui/register";

// Runner administration for the console and the admin CLI: endpoints and their discovered
// runners, bindings, and a run's result log. Secrets never leave this layer.

function discoveryView(o: DiscoveryOutcome) {
  return {
    endpointId: o.endpoint.id,
    baseUrl: o.endpoint.baseUrl,
    status: o.endpoint.status,
    lastError: o.endpoint.lastError,
    runnerIds: o.runners.map((m) => m.id),
    warnings: o.warnings,
  };
}

export async function registerRunner(opts: { url: string; secret: string }) {
  return discoveryView(await registerRunnerEndpoint(opts));
}

/** Registers (or updates) an agent that serves AG-UI as a runner (docs/agents.md); its headers are sealed and never shown again. */
export async function registerAgent(opts: AgUiAgentInput) {
  const { endpoint, runnerId } = await registerAgUiAgent(opts);
  return { endpointId: endpoint.id, url: endpoint.baseUrl, runnerId, options: agentOptionsOf(endpoint) };
}

export async function refreshRunner({ endpointId }: { endpointId: string }) {
  return discoveryView(await refreshRunnerEndpoint({ id: endpointId }));
}

export async function removeRunnerEndpoint({ endpointId }: { endpointId: string }) {
  if (!(await deleteEndpoint({ id: endpointId }))) throw new AppError("NOT_FOUND", `Runner endpoint ${endpointId} not found`);
  dropBindingSnapshot();
}

/** Everything the runners page shows: endpoints with health, runners with manifests, bindings. */
export async function runnersOverview() {
  await ensureBuiltinRunner();
  const [endpoints, runners, bindings] = await Promise.all([listEndpoints(), listRunners(), listBindings()]);
  const manifests = new Map(runners.map((r) => [r.id, r.manifest]));
  return {
    endpoints: endpoints.map((e) => ({
      id: e.id,
      kind: e.kind,
      baseUrl: e.baseUrl,
      status: e.status,
      lastError: e.lastError,
      warnings: e.warnings,
      refreshedAt: e.refreshedAt,
      createdAt: e.createdAt,
    })),
    runners: runners.map((r) => ({
      id: r.id,
      name: r.name,
      endpointId: r.endpointId,
      builtin: r.id === BUILTIN_MANIFEST.id,
      available: r.available,
      manifest: r.manifest,
      updatedAt: r.updatedAt,
    })),
    bindings: bindings.map((b) => ({
      id: b.id,
      runnerId: b.runnerId,
      scope: b.scope,
      userId: b.userId,
      userEmail: b.userEmail,
      threadId: b.threadId,
      eventTypes: b.eventTypes,
      config: maskedConfig(manifests.get(b.runnerId)?.config_schema ?? [], b.config),
      policy: b.policy,
      enabled: b.enabled,
      autoApprove: b.autoApprove,
      multitaskStrategy: b.multitaskStrategy,
      createdAt: b.createdAt,
    })),
  };
}

export async function bindRunner(opts: Parameters<typeof createBinding>[0]) {
  const b = await createBinding(opts);
  return { id: b.id, runnerId: b.runnerId, scope: b.scope, userId: b.userId, threadId: b.threadId, autoApprove: b.autoApprove, multitaskStrategy: b.multitaskStrategy };
}

export async function updateRunnerBinding(opts: Parameters<typeof changeBinding>[0]) {
  const b = await changeBinding(opts);
  return { id: b.id, enabled: b.enabled, autoApprove: b.autoApprove, multitaskStrategy: b.multitaskStrategy };
}

export async function removeRunnerBinding({ id }: { id: string }) {
  if (!(await deleteBinding({ id }))) throw new AppError("NOT_FOUND", `Binding ${id} not found`);
  dropBindingSnapshot();
}

export async function runResults({ runId }: { runId: string }) {
  return listRunnerResults({ runId });
}

/** The host API calls a run's runner made (the audit), for the admin run page. */
export async function runApiCalls(opts: { runId: string; limit: number }) {
  return listRunApiCalls(opts);
}

/** This instance's count of host API calls refused before authentication, by reason (never stored one row each). */
export function refusedApiCalls() {
  return { byReason: refusedCallCounts() };
}

/**
 * The agents the user's chat may pick from (docs/agents.md#choosing-an-agent): their own bindings
 * and everyone's, the one that answers by default first. `id` is what a run sends as
 * forwardedProps.agent. The chat offers a choice only when there are two or more.
 */
export async function listMyAgents({ userId }: { userId: string }) {
  const rows = await listAgentChoices({ userId, eventType: MESSAGE_RECEIVED });
  return rows.map((r, i) => ({ id: r.bindingId, runnerId: r.runnerId, label: r.label, scope: r.scope, default: i === 0 }));
}
