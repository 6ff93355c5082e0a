import "server-only";
import { body, caption, clip, compileCard, humanizeKey, SHORT, title } from "../ui-schema/compile";
import type { UiNodeInput, UiSchema, UiStatus } from "../ui-schema/schema";
import { findAction } from "../tools/project-cli/actions";
import type { ApprovalRow, ApprovalStatus } from "./repository";

// The approval card: what will happen (the action, in the words of its schema, and every field
// of its input) and where the request stands. One function draws it for every surface (the
// interrupt's metadata, the thread's pending message in /history, the web chat), so the card a
// person approves from is the same everywhere.

/** What a person can do with a request while it is pending. */
export const APPROVAL_ACTIONS = ["approve", "edit", "deny"] as const;

/** The request as every surface shows it, next to its card. */
export type ApprovalView = {
  id: string;
  status: ApprovalStatus;
  toolCallId: string;
  /** module.method */
  action: string;
  input: unknown;
  expiresAt: string;
  actions: (typeof APPROVAL_ACTIONS)[number][];
  decidedAt: string | null;
  reason: string | null;
};

const BADGE: Record<ApprovalStatus, { label: string; status: UiStatus | "neutral"; card: UiStatus }> = {
  pending: { label: "Waiting for your approval", status: "pending", card: "pending" },
  approved: { label: "Approved", status: "success", card: "success" },
  denied: { label: "Denied: not done", status: "warning", card: "warning" },
  expired: { label: "Expired: not done", status: "warning", card: "warning" },
  superseded: { label: "Not approved: a new message came first", status: "warning", card: "warning" },
};

function display(value: unknown): string {
  if (value === null) return "(cleared)";
  if (typeof value === "string") return value.trim() ? value : "(empty)";
  if (Array.isArray(value)) return value.length ? value.map(display).join(", ") : "(none)";
  return JSON.stringify(value) ?? String(value);
}

/** The effective status right now: a pending request whose time is up is expired, whatever the row says yet. */
export function currentStatus(row: Pick<ApprovalRow, "status" | "expiresAt">, now = new Date()): ApprovalStatus {
  return row.status === "pending" && row.expiresAt.getTime() <= now.getTime() ? "expired" : row.status;
}

export function approvalView(row: ApprovalRow, now = new Date()): ApprovalView {
  const status = currentStatus(row, now);
  return {
    id: row.id,
    status,
    toolCallId: row.toolCallId,
    action: row.action,
    input: row.editedInput ?? row.input,
    expiresAt: row.expiresAt.toISOString(),
    actions: status === "pending" ? [...APPROVAL_ACTIONS] : [],
    decidedAt: row.decidedAt?.toISOString() ?? null,
    reason: row.reason,
  };
}

/** The card of an approval request in its current state. */
export function approvalCard(row: ApprovalRow, now = new Date()): UiSchema {
  return approvalCardOf(approvalView(row, now));
}

/** The id of the approval a thread's pending message stands for (its `metadata.approval`), or null. */
export function storedApprovalId(raw: unknown): string | null {
  const id = (raw as { id?: unknown } | null)?.id;
  return typeof id === "string" ? id : null;
}

/** An approval with its card, as /history shows it: from its row, so its current state. */
export function approvalWithCard(row: ApprovalRow, now = new Date()): { view: ApprovalView; uiSchema: UiSchema } {
  const view = approvalView(row, now);
  return { view, uiSchema: approvalCardOf(view) };
}

function approvalCardOf(view: ApprovalView): UiSchema {
  const [module = "", method = ""] = view.action.split(".");
  const described = findAction(module, method)?.input.description;
  const badge = BADGE[view.status];
  const input = view.input && typeof view.input === "object" && !Array.isArray(view.input) ? Object.entries(view.input) : [];
  const nodes: UiNodeInput[] = [
    title(`Approve ${view.action}?`),
    { type: "badge", label: badge.label, status: badge.status },
  ];
  if (described) nodes.push(body(described));
  if (input.length > 0) nodes.push({ type: "key_value", items: input.slice(0, 100).map(([k, v]) => ({ label: clip(humanizeKey(k), SHORT), value: clip(display(v), 4_000) })) });
  if (view.reason) nodes.push(body(`Reason: ${view.reason}`));
  if (view.status === "pending") nodes.push(caption(`Expires ${view.expiresAt}`));
  return compileCard({ kind: "approval", locale: "en", status: badge.card, meta: { toolId: clip(view.toolCallId, SHORT) }, children: nodes });
}
