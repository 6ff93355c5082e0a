import "server-only";
import { HOST_API_ACTIONS, type HostApiActionName, type HostApiPermission } from "../../protocols/runner/host-api";
import { refused } from "./failure";
import type { RunSession } from "./session";

// The run's frozen authorization applied to one call: first the operation (is this kind of
// call granted at all), then the resource it names (model, tool, knowledge base,
// conversation, state scope, storage area, platform action). Both read the raw body, before
// parameter validation, so an ungranted call learns nothing about the parameters it would need.
// Which rule applies is the action's grant group in HOST_API_ACTIONS, never its name.

export type CallTarget = { resource: string | null; scope: string | null };

type Group = HostApiPermission["group"];
type Authorization = RunSession["authorization"];

type GroupRule = {
  /** Refuses a run whose authorization does not grant this kind of call at all. */
  checkOperation(action: HostApiActionName, session: RunSession): void;
  /** What the call names, for the audit: the resource and the scope it reaches into. */
  target(action: HostApiActionName, raw: Record<string, unknown>, session: RunSession): CallTarget;
  /** Refuses a named resource the run was not granted. */
  checkResource(action: HostApiActionName, raw: Record<string, unknown>, auth: Authorization): void;
};

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const filtersOf = (raw: Record<string, unknown>): Record<string, unknown> =>
  typeof raw.filters === "object" && raw.filters !== null ? (raw.filters as Record<string, unknown>) : {};

function grantedOrRefuse(what: string, value: string | null, granted: readonly string[]): void {
  if (value !== null && !granted.includes(value)) throw refused(`${what} ${value} is not granted to this run`, { [what.replace(/ /g, "_")]: value });
}

// The operation itself is granted when the table's operation for this action is in the run's
// list for its group, so a new action of an existing group needs no rule of its own.
function operationGranted(action: HostApiActionName, session: RunSession): void {
  const permission = HOST_API_ACTIONS[action].permission;
  if (!("operation" in permission)) return;
  const granted: readonly string[] = session.authorization[permission.group].operations;
  if (!granted.includes(permission.operation)) {
    throw refused(`${action} is not granted to this run (${permission.group} operations: ${granted.join(", ") || "none"})`, {
      operation: permission.operation,
    });
  }
}

const noResourceCheck = () => {};

const ranksWithHostModel = (action: HostApiActionName) => {
  const permission = HOST_API_ACTIONS[action].permission;
  return "operation" in permission && permission.operation === "rerank";
};

// Events and artifacts are looked up inside the run's conversation by their handlers, so one
// elsewhere is simply not found; conversations are checked here.
const historyConversation = (action: HostApiActionName, raw: Record<string, unknown>) =>
  str(action === "history/page" ? raw.conversation_id : filtersOf(raw).conversation_id);

// One rule per grant group of the host-API table; the Record makes a new group a compile
// error until it says how it is authorized and audited.
const GROUP_RULES: Record<Group, GroupRule> = {
  models: {
    checkOperation: operationGranted,
    target: (_action, raw) => ({ resource: str(raw.model_id), scope: null }),
    // A ranking model is the host's own (models/rerank), never one of the run's granted chat models:
    // its operation is the whole grant.
    checkResource: (action, raw, auth) => {
      if (!ranksWithHostModel(action)) grantedOrRefuse("model", str(raw.model_id), auth.models.model_ids);
    },
  },
  tools: {
    checkOperation: operationGranted,
    target: (_action, raw) => ({ resource: str(raw.tool_name), scope: null }),
    checkResource: (_action, raw, auth) => grantedOrRefuse("tool", str(raw.tool_name), auth.tools.names),
  },
  knowledge_bases: {
    checkOperation: operationGranted,
    target: (_action, raw) => ({ resource: str(raw.kb_id), scope: null }),
    checkResource: (action, raw, auth) =>
      grantedOrRefuse("knowledge base", action === "knowledge/retrieve" ? str(raw.kb_id) : null, auth.knowledge_bases.ids),
  },
  history: {
    checkOperation: operationGranted,
    target: (action, raw, session) => ({
      resource: null,
      scope: action === "history/page" ? (historyConversation(action, raw) ?? session.threadId) : historyConversation(action, raw),
    }),
    checkResource: (action, raw, auth) => grantedOrRefuse("conversation", historyConversation(action, raw), auth.history.conversation_ids),
  },
  events: {
    checkOperation: operationGranted,
    target: (_action, raw, session) => ({ resource: str(raw.event_id), scope: session.threadId }),
    checkResource: noResourceCheck,
  },
  artifacts: {
    checkOperation: operationGranted,
    target: (_action, raw, session) => ({ resource: str(raw.artifact_id), scope: session.threadId }),
    checkResource: noResourceCheck,
  },
  state: {
    checkOperation: (action, session) => {
      if (session.bindingId === null || session.authorization.state.scopes.length === 0) throw refused(`${action} is not granted to this run: it has no state scopes`);
    },
    target: (_action, raw) => ({ resource: str(raw.key), scope: str(raw.scope) }),
    checkResource: (_action, raw, auth) => grantedOrRefuse("state scope", str(raw.scope), auth.state.scopes),
  },
  storage: {
    checkOperation: (action, session) => {
      if (session.authorization.storage.areas.length === 0) throw refused(`${action} is not granted to this run: it has no storage areas`);
    },
    target: (_action, raw) => ({ resource: str(raw.key) ?? str(raw.prefix), scope: str(raw.area) }),
    checkResource: (_action, raw, auth) => grantedOrRefuse("storage area", str(raw.area), auth.storage.areas),
  },
  platform_api: {
    checkOperation: (action, session) => {
      if (session.authorization.platform_api.actions.length === 0) {
        throw refused(`${action} is not granted to this run: no platform action is allowed by its manifest, binding and policy`, { reason: "not_granted" });
      }
    },
    target: (_action, raw) => ({ resource: str(raw.action), scope: null }),
    checkResource: (_action, raw, auth) => {
      const asked = str(raw.action);
      if (asked !== null && !auth.platform_api.actions.includes(asked)) {
        throw refused(`platform action ${asked} is not granted to this run: the runner's manifest and the binding's policy must both allow it`, { platform_action: asked, reason: "not_granted" });
      }
    },
  },
};

const ruleOf = (action: HostApiActionName): GroupRule => GROUP_RULES[HOST_API_ACTIONS[action].permission.group];

export function checkOperation(action: HostApiActionName, session: RunSession): void {
  ruleOf(action).checkOperation(action, session);
}

/** What the call names, for the audit: the resource and the scope it reaches into. */
export function callTarget(action: HostApiActionName, raw: Record<string, unknown>, session: RunSession): CallTarget {
  return ruleOf(action).target(action, raw, session);
}

/** Checks the resource the call names against the run's grants. */
export function checkResource(action: HostApiActionName, raw: Record<string, unknown>, session: RunSession): void {
  ruleOf(action).checkResource(action, raw, session.authorization);
}
