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

function grantedOrRefuse(what: string, value: string | null, granted: readonly string[]): void {
  if (value !== null && !granted.includes(value)) throw refused(`${what} ${value} is not granted to this run`, { [what.replace(/ /g, "_")]: value });
}

/** Checks the resource the call names and says what it is, for the audit. */
export function checkResource(action: HostApiActionName, raw: Record<string, unknown>, session: RunSession): CallTarget {
  const auth = session.authorization;
  const group = action.slice(0, action.indexOf("/"));
  switch (group) {
    case "models": {
      const id = str(raw.model_id);
      grantedOrRefuse("model", id, auth.models.model_ids);
      return { resource: id, scope: null };
    }
    case "tools": {
      const name = str(raw.tool_name);
      grantedOrRefuse("tool", name, auth.tools.names);
      return { resource: name, scope: null };
    }
    case "knowledge": {
      const kb = action === "knowledge/retrieve" ? str(raw.kb_id) : null;
      grantedOrRefuse("knowledge base", kb, auth.knowledge_bases.ids);
      return { resource: kb, scope: null };
    }
    case "history": {
      const filters = typeof raw.filters === "object" && raw.filters !== null ? (raw.filters as Record<string, unknown>) : {};
      const asked = str(action === "history/page" ? raw.conversation_id : filters.conversation_id);
      grantedOrRefuse("conversation", asked, auth.history.conversation_ids);
      return { resource: null, scope: asked ?? (action === "history/page" ? session.threadId : null) };
    }
    case "events":
      return { resource: str(raw.event_id), scope: session.threadId };
    case "artifacts":
      return { resource: str(raw.artifact_id), scope: session.threadId };
    case "state": {
      const scope = str(raw.scope);
      grantedOrRefuse("state scope", scope, auth.state.scopes);
      return { resource: str(raw.key), scope };
    }
    case "storage": {
      const area = str(raw.area);
      grantedOrRefuse("storage area", area, auth.storage.areas);
      return { resource: str(raw.key) ?? str(raw.prefix), scope: area };
    }
    case "platform": {
      const name = str(raw.action);
      grantedOrRefuse("platform action", name, auth.platform_api.actions);
      return { resource: name, scope: null };
    }
    default:
      return { resource: null, scope: null };
  }
}
