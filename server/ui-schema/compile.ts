import "server-only";
import {
  MAX_CHILDREN,
  parseUiSchema,
  type UiNodeInput,
  type UiSchema,
  type UiSchemaMeta,
  type UiStatus,
} from "./schema";
import {
  uiHintsSchema,
  type CalendarEventHint,
  type ContactHint,
  type UiHints,
} from "./hints";
import { messagesFor, type UiMessages } from "./messages";

// The codec from ui_hints (domain facts) to UiSchema (presentation). It owns every word on
// the card, so hints stay language-free and old rows replay in today's wording.

export type CompileUiHintsOptions = {
  /** BCP 47 tag for the card's words and date formats; English when absent or invalid. */
  locale?: string;
  meta?: UiSchemaMeta;
};

type Node = UiNodeInput;
type HintOf<K extends UiHints["kind"]> = Extract<UiHints, { kind: K }>;

const SHORT = 200;
const LONG = 4_000;
const DEFAULT_LOCALE = "en";

/** Compiles ui_hints into a schema-checked UiSchema 2.0 document; throws only on a compiler bug. */
export function compileUiHints(hints: UiHints, opts: CompileUiHintsOptions = {}): UiSchema {
  const locale = resolveLocale(opts.locale);
  const m = messagesFor(locale);
  const root = compileRoot(hints, m);
  const parsed = parseUiSchema({
    version: "2.0",
    locale,
    status: statusFor(hints),
    theme: "default",
    ...(opts.meta ? { meta: opts.meta } : {}),
    root,
  });
  if (!parsed.success) throw new Error(`compileUiHints produced an invalid UiSchema for ${hints.kind}: ${parsed.error}`);
  return parsed.data;
}

/**
 * For ui_hints read back from storage, which may predate today's schema: null when they
 * no longer parse, so history still loads and the message simply has no card.
 */
export function compileStoredUiHints(raw: unknown, opts: CompileUiHintsOptions = {}): UiSchema | null {
  if (raw === null || raw === undefined) return null;
  const parsed = uiHintsSchema.safeParse(raw);
  if (!parsed.success) return null;
  try {
    return compileUiHints(parsed.data, opts);
  } catch {
    return null;
  }
}

function statusFor(hints: UiHints): UiStatus {
  switch (hints.kind) {
    case "error":
      return "error";
    case "calendar.event":
      return "success";
    case "memory.facts":
      return hints.action === "updated" ? "success" : "info";
    case "calendar.events":
    case "contacts.list":
      return "info";
  }
}

function compileRoot(hints: UiHints, m: UiMessages): Node {
  switch (hints.kind) {
    case "calendar.events":
      return card(calendarEvents(hints, m));
    case "calendar.event":
      return card(calendarEventChange(hints, m));
    case "contacts.list":
      return card(contactsList(hints, m));
    case "memory.facts":
      return card(memoryFacts(hints, m));
    case "error":
      return card(errorCard(hints, m));
  }
}

function calendarEvents(hints: HintOf<"calendar.events">, m: UiMessages): Node[] {
  const nodes: Node[] = [title(hints.title ?? m.calendarTitle)];
  if (hints.range) {
    const { start, end, timeZone } = hints.range;
    nodes.push({
      type: "stack",
      direction: "horizontal",
      children: [
        { type: "datetime", value: start, timeZone, format: "datetime", label: m.rangeFrom },
        { type: "datetime", value: end, timeZone, format: "datetime", label: m.rangeUntil },
      ],
    });
  }
  if (hints.events.length === 0) {
    nodes.push(body(m.noEvents));
    return nodes;
  }
  nodes.push(caption(countCaption(hints.events.length, hints.events.length, m.eventsCount, m)));
  nodes.push({ type: "list", label: m.events, items: hints.events.slice(0, MAX_CHILDREN).map(eventNode) });
  return nodes;
}

function calendarEventChange(hints: HintOf<"calendar.event">, m: UiMessages): Node[] {
  const words = m.eventActions[hints.action];
  const nodes: Node[] = [
    title(words.title),
    { type: "badge", label: words.badge, status: hints.action === "invite_rejected" ? "neutral" : "success" },
    eventNode(hints.event),
  ];
  const changed = hints.changedFields?.filter(Boolean) ?? [];
  if (changed.length > 0) {
    nodes.push({ type: "key_value", items: [{ label: m.changed, value: clip(changed.join(", "), LONG) }] });
  }
  const invitees = (hints.sharedWith ?? []).flatMap((person) => {
    const name = person.name ?? person.email;
    return name ? [{ type: "contact" as const, name: clip(name, SHORT), email: short(person.email) }] : [];
  });
  if (invitees.length > 0) {
    nodes.push({ type: "list", label: m.sharedWith, items: invitees.slice(0, MAX_CHILDREN) });
  }
  return nodes;
}

function contactsList(hints: HintOf<"contacts.list">, m: UiMessages): Node[] {
  const query = hints.query ? clip(hints.query, 80) : undefined;
  const nodes: Node[] = [title(query ? m.contactsMatching(query) : m.contactsTitle)];
  if (hints.contacts.length === 0) {
    nodes.push(body(query ? m.noContactsMatching(query) : m.noContacts));
    return nodes;
  }
  const total = Math.max(hints.total ?? 0, hints.contacts.length);
  nodes.push(caption(countCaption(hints.contacts.length, total, m.contactsCount, m)));
  nodes.push({ type: "list", label: m.contactsTitle, items: hints.contacts.slice(0, MAX_CHILDREN).map(contactNode) });
  return nodes;
}

function memoryFacts(hints: HintOf<"memory.facts">, m: UiMessages): Node[] {
  const updated = hints.action === "updated";
  const nodes: Node[] = [title(updated ? m.memoryUpdatedTitle : m.memoryReadTitle)];
  if (updated) nodes.push({ type: "badge", label: m.memoryUpdatedBadge, status: "success" });
  if (hints.facts.length === 0) {
    nodes.push(body(m.noFacts));
    return nodes;
  }
  nodes.push(caption(countCaption(hints.facts.length, hints.facts.length, m.factsCount, m)));
  nodes.push({
    type: "key_value",
    items: hints.facts.slice(0, MAX_CHILDREN).map((fact) => ({ label: clip(humanizeKey(fact.key), SHORT), value: fact.value })),
  });
  const latest = hints.facts
    .map((fact) => fact.updatedAt)
    .filter((at): at is string => at !== undefined)
    .sort((a, b) => Date.parse(b) - Date.parse(a))[0];
  if (latest) nodes.push({ type: "datetime", value: latest, format: "datetime", label: m.lastUpdated });
  return nodes;
}

function errorCard(hints: HintOf<"error">, m: UiMessages): Node[] {
  const operation = hints.module ? [hints.module, hints.method].filter(Boolean).join(".") : undefined;
  const nodes: Node[] = [
    title(m.errorTitle(operation)),
    { type: "badge", label: m.errorBadge, status: "error" },
    body(hints.message),
    { type: "key_value", items: [{ label: m.errorCode, value: hints.code }] },
  ];
  if (hints.retryable) nodes.push(caption(m.retryable));
  return nodes;
}

function eventNode(event: CalendarEventHint): Node {
  const attendees = (event.attendees ?? [])
    .filter((a) => a.name !== undefined || a.email !== undefined)
    .slice(0, MAX_CHILDREN)
    .map((a) => ({ name: short(a.name), email: short(a.email), response: a.response }));
  const organizer = event.organizer?.name || event.organizer?.email
    ? { name: short(event.organizer.name), email: short(event.organizer.email) }
    : undefined;
  return {
    type: "calendar_event",
    id: short(event.id),
    title: clip(event.title, SHORT),
    start: event.start,
    end: event.end,
    allDay: event.allDay ?? false,
    timeZone: event.timeZone,
    location: event.location,
    description: event.description,
    organizer,
    attendees: attendees.length > 0 ? attendees : undefined,
    status: event.status ?? "confirmed",
  };
}

function contactNode(contact: ContactHint): Node {
  return {
    type: "contact",
    id: short(contact.id),
    name: clip(contact.name, SHORT),
    email: short(contact.email),
    phone: short(contact.phone),
    company: short(contact.company),
    jobTitle: short(contact.jobTitle),
  };
}

function countCaption(shown: number, total: number, count: (n: number) => string, m: UiMessages): string {
  const kept = Math.min(shown, MAX_CHILDREN);
  return kept < total ? m.showing(kept, total) : count(total);
}

function card(children: Node[]): Node {
  return { type: "stack", appearance: "card", children };
}

function title(content: string): Node {
  return { type: "text", role: "title", content: clip(content, LONG) };
}

function body(content: string): Node {
  return { type: "text", role: "body", content: clip(content, LONG) };
}

function caption(content: string): Node {
  return { type: "text", role: "caption", content: clip(content, LONG) };
}

function humanizeKey(key: string): string {
  const spaced = key.replace(/[_-]+/g, " ").trim();
  return spaced ? spaced.charAt(0).toUpperCase() + spaced.slice(1) : key;
}

function short(value: string | undefined): string | undefined {
  return value === undefined ? undefined : clip(value, SHORT);
}

// Hints allow longer text than the card's short fields; cut rather than fail the whole card.
function clip(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, max - 1)}…`;
}

function resolveLocale(locale: string | undefined): string {
  if (!locale) return DEFAULT_LOCALE;
  try {
    return Intl.getCanonicalLocales(locale)[0] ?? DEFAULT_LOCALE;
  } catch {
    return DEFAULT_LOCALE;
  }
}
