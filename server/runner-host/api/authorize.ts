import "server-only";
import { HOST_API_ACTIONS, type HostApiActionName } from "../../protocols/runner/host-api";
import { refused } from "./failure";
import type { RunSession } from "./session";

// The run's frozen authorization applied to one call: first the operation (is this kind of
// call granted at all), then the resource it names (model, tool, knowledge base,
// conversation, state scope, storage area, platform action). Both read the raw body, before
// parameter validation, so an ungranted call learns nothing about the parameters it would need.

export type CallTarget = { resource: string | null; scope: string | null };

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

export function checkOperation(action: HostApiActionName, session: RunSession): void {
  const auth = session.authorization;
  const permission = HOST_API_ACTIONS[action].permission;
  switch (permission.group) {
    case "state":
      if (session.bindingId === null || auth.state.scopes.length === 0) throw refused(`${action} is not granted to this run: it has no state scopes`);
      return;
    case "storage":
      if (auth.storage.areas.length === 0) throw refused(`${action} is not granted to this run: it has no storage areas`);
      return;
    case "platform_api":
      if (auth.platform_api.actions.length === 0) throw refused(`${action} is not granted to this run: no platform action is allowed by its manifest, binding and policy`);
      return;
    default: {
      const granted: readonly string[] = auth[permission.group].operations;
      if (!granted.includes(permission.operation)) {
        throw refused(`${action} is not granted to this run (${permission.group} operations: ${granted.join(", ") || "none"})`, {
          operation: permission.operation,
        });
      }
    }
  }
}

/** What the call names, for the audit: the resource and the scope it reaches into. */
export function callTarget(action: HostApiActionName, raw: Record<string, unknown>, session: RunSession): CallTarget {
  const group = action.slice(0, action.indexOf("/"));
  const filters = typeof raw.filters === "object" && raw.filters !== null ? (raw.filters as Record<string, unknown>) : {};
  switch (group) {
    case "models":
      return { resource: str(raw.model_id), scope: null };
    case "tools":
      return { resource: str(raw.tool_name), scope: null };
    case "knowledge":
      return { resource: str(raw.kb_id), scope: null };
    case "history":
      return { resource: null, scope: action === "history/page" ? (str(raw.conversation_id) ?? session.threadId) : str(filters.conversation_id) };
    case "events":
      return { resource: str(raw.event_id), scope: session.threadId };
    case "artifacts":
      return { resource: str(raw.artifact_id), scope: session.threadId };
    case "state":
      return { resource: str(raw.key), scope: str(raw.scope) };
    case "storage":
      return { resource: str(raw.key) ?? str(raw.prefix), scope: str(raw.area) };
    case "platform":
      return { resource: str(raw.action), scope: null };
    default:
      return { resource: null, scope: null };
  }
}

function grantedOrRefuse(what: string, value: string | null, granted: readonly string[]): void {
  if (value !== null && !granted.includes(value)) throw refused(`${what} ${value} is not granted to this run`, { [what.replace(/ /g, "_")]: value });
}

/**
 * Checks the resource the call names against the run's grants. Conversations are checked
 * here; events and artifacts are looked up inside the run's conversation by their handlers,
 * so one elsewhere is simply not found.
 */
export function checkResource(action: HostApiActionName, raw: Record<string, unknown>, session: RunSession): void {
  const auth = session.authorization;
  const group = action.slice(0, action.indexOf("/"));
  switch (group) {
    case "models":
      return grantedOrRefuse("model", str(raw.model_id), auth.models.model_ids);
    case "tools":
      return grantedOrRefuse("tool", str(raw.tool_name), auth.tools.names);
    case "knowledge":
      return grantedOrRefuse("knowledge base", action === "knowledge/retrieve" ? str(raw.kb_id) : null, auth.knowledge_bases.ids);
    case "history": {
      const filters = typeof raw.filters === "object" && raw.filters !== null ? (raw.filters as Record<string, unknown>) : {};
      return grantedOrRefuse("conversation", str(action === "history/page" ? raw.conversation_id : filters.conversation_id), auth.history.conversation_ids);
    }
    case "state":
      return grantedOrRefuse("state scope", str(raw.scope), auth.state.scopes);
    case "storage":
      return grantedOrRefuse("storage area", str(raw.area), auth.storage.areas);
    case "platform":
      return grantedOrRefuse("platform action", str(raw.action), auth.platform_api.actions);
    default:
      return;
  }
}
