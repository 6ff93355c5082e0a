import "server-only";
import { body, clip, compileCard, humanizeKey, resolveLocale, SHORT, title } from "../ui-schema/compile";
import { languageOf, type Language, type Translations } from "../ui-schema/messages";
import { isoDateTimeSchema, MAX_CHILDREN, type UiNodeInput, type UiSchema, type UiStatus } from "../ui-schema/schema";
import { findAction } from "../tools/project-cli/actions";
import type { ApprovalRow, ApprovalStatus } from "./repository";

// The approval card: what will happen (the action, in the words of its schema, and every field
// of its input) and where the request stands. One function draws it for every surface (the
// interrupt's metadata, the thread's pending message in /history, the web chat), so the card a
// person approves from is the same everywhere.

/** What a person can do with a request while it is pending. */
export const APPROVAL_ACTIONS = ["approve", "edit", "deny"] as const;

/** The action of a request an AG-UI agent raised (its interrupt): answered, never edited. */
export const AGENT_INTERRUPT_ACTION = "agent.interrupt";
const isAgentInterrupt = (action: string) => action === AGENT_INTERRUPT_ACTION;

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

type Words = {
  badge: Record<ApprovalStatus, string>;
  /** The question for an action that declares none (an MCP tool): `action` is its humanized name and where it runs. */
  title: (action: string) => string;
  /** The question of an agent's interrupt that brings no message of its own. */
  agentAsks: (reason: string) => string;
  reason: (reason: string) => string;
  expires: string;
  cleared: string;
  empty: string;
  none: string;
};

const words: Translations<Words> = {
  en: {
    badge: {
      pending: "Waiting for your approval",
      approved: "Approved",
      denied: "Denied: not done",
      expired: "Expired: not done",
      superseded: "Not approved: a new message came first",
    },
    title: (action) => `Let the assistant ${action}?`,
    agentAsks: (reason) => `The agent waits for your answer (${reason}). Go on?`,
    reason: (reason) => `Reason: ${reason}`,
    expires: "Expires",
    cleared: "(cleared)",
    empty: "(empty)",
    none: "(none)",
  },
  zh: {
    badge: {
      pending: "等待你的批准",
      approved: "已批准",
      denied: "已拒绝：未执行",
      expired: "已过期：未执行",
      superseded: "未批准：有新消息先到",
    },
    title: (action) => `允许助手${action}？`,
    agentAsks: (reason) => `智能体在等你的回答（${reason}）。继续吗？`,
    reason: (reason) => `原因：${reason}`,
    expires: "到期时间",
    cleared: "（已清空）",
    empty: "（空）",
    none: "（无）",
  },
};

const STATUS: Record<ApprovalStatus, { badge: UiStatus | "neutral"; card: UiStatus }> = {
  pending: { badge: "pending", card: "pending" },
  approved: { badge: "success", card: "success" },
  denied: { badge: "warning", card: "warning" },
  expired: { badge: "warning", card: "warning" },
  superseded: { badge: "warning", card: "warning" },
};

// The fields shown, so the card's own nodes (title, badge, description, reason, expiry) still fit
// beside one node per instant.
const MAX_FIELDS = MAX_CHILDREN - 10;

/** Who the card is drawn for: its language (the card compiler's, English by default) and the moment. */
export type CardOptions = { locale?: string; now?: Date };

// A value as a person reads it: never JSON (an object reads as its fields, "Name: value; …").
function display(value: unknown, w: Words): string {
  if (value === null) return w.cleared;
  if (typeof value === "string") return value.trim() ? value : w.empty;
  if (Array.isArray(value)) return value.length ? value.map((v) => display(v, w)).join(", ") : w.none;
  if (typeof value === "object") return Object.entries(value as Record<string, unknown>).map(([k, v]) => `${humanizeKey(k)}: ${display(v, w)}`).join("; ") || w.none;
  return String(value);
}

/** "create_ticket" → "create ticket". */
const spoken = (name: string) => name.replaceAll(/[_\-.]+/g, " ").trim();

/** What a request asks, in `locale`'s language: the interrupt's message and the card's title. */
export function approvalQuestion(row: Pick<ApprovalRow, "action" | "input" | "editedInput">, locale?: string): string {
  const language = languageOf(resolveLocale(locale));
  return question({ action: row.action, input: row.editedInput ?? row.input }, words[language], language);
}

/** The card's question: the action's own (its module declares it), else its name and where it runs. */
function question(view: Pick<ApprovalView, "action" | "input">, w: Words, language: Language): string {
  if (isAgentInterrupt(view.action)) {
    // The agent's own words, as it wrote them (it knows its user's language better than we do).
    const { message, reason } = (view.input ?? {}) as { message?: unknown; reason?: unknown };
    return typeof message === "string" && message.trim() ? message : w.agentAsks(String(reason ?? ""));
  }
  const [module = "", method = ""] = view.action.split(".");
  const declared = findAction(module, method)?.asks?.(view.input);
  if (declared) return declared[language];
  return w.title(language === "zh" ? `使用 ${module} 的“${spoken(method)}”` : `use “${spoken(method)}” on ${module}`);
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
    actions: status !== "pending" ? [] : isAgentInterrupt(row.action) ? ["approve", "deny"] : [...APPROVAL_ACTIONS],
    decidedAt: row.decidedAt?.toISOString() ?? null,
    reason: row.reason,
  };
}

/** The card of an approval request in its current state. */
export function approvalCard(row: ApprovalRow, opts: CardOptions = {}): UiSchema {
  return approvalCardOf(approvalView(row, opts.now), opts.locale);
}

/** The id of the approval a thread's pending message stands for (its `metadata.approval`), or null. */
export function storedApprovalId(raw: unknown): string | null {
  const id = (raw as { id?: unknown } | null)?.id;
  return typeof id === "string" ? id : null;
}

/** An approval with its card, as /history shows it: from its row, so its current state. */
export function approvalWithCard(row: ApprovalRow, opts: CardOptions = {}): { view: ApprovalView; uiSchema: UiSchema } {
  const view = approvalView(row, opts.now);
  return { view, uiSchema: approvalCardOf(view, opts.locale) };
}

// Its words follow the card compiler's languages; the expiry is a datetime node, so the renderer
// shows it like every other card's times: 24-hour, in the viewer's zone and language.
function approvalCardOf(view: ApprovalView, requested: string | undefined): UiSchema {
  const locale = resolveLocale(requested);
  const w = words[languageOf(locale)];
  const [module = "", method = ""] = view.action.split(".");
  const action = findAction(module, method);
  // A declared question says what the action does; an undeclared one is followed by its description.
  const described = action?.asks ? undefined : action?.input.description;
  const status = STATUS[view.status];
  const entries = view.input && typeof view.input === "object" && !Array.isArray(view.input) ? Object.entries(view.input) : [];
  // The fields the module says matter; without a say, all but ids (which no person reads).
  // An agent's interrupt shows its reason (its message is the question; its schema is for machines).
  const shows = isAgentInterrupt(view.action) ? ["reason"] : action?.shows;
  const shown = (k: string) => (shows ? shows.includes(k) : !/(^|_)id$/.test(k));
  const fields = entries.filter(([k]) => shown(k)).slice(0, MAX_FIELDS);
  // An instant in the input shows as the card's other times do, not as the ISO text the model wrote.
  const isInstant = (v: unknown) => isoDateTimeSchema.safeParse(v).success;
  const input = fields.filter(([, v]) => !isInstant(v));
  const instants = fields.filter(([, v]) => isInstant(v));
  const nodes: UiNodeInput[] = [
    title(question(view, w, languageOf(locale))),
    { type: "badge", label: w.badge[view.status], status: status.badge },
  ];
  if (described) nodes.push(body(described));
  if (input.length > 0) nodes.push({ type: "key_value", items: input.map(([k, v]) => ({ label: clip(humanizeKey(k), SHORT), value: clip(display(v, w), 4_000) })) });
  for (const [k, v] of instants) nodes.push({ type: "datetime", value: v as string, format: "datetime", label: clip(humanizeKey(k), SHORT) });
  if (view.reason) nodes.push(body(w.reason(view.reason)));
  if (view.status === "pending") nodes.push({ type: "datetime", value: view.expiresAt, format: "datetime", label: w.expires });
  return compileCard({ kind: "approval", locale, status: status.card, meta: { toolId: clip(view.toolCallId, SHORT) }, children: nodes });
}
