import "server-only";
import type { z } from "zod";
import { logger } from "@/server/logger";
import { uiHintsSchema, type CalendarEventAction, type CalendarEventHint, type UiHints } from "@/server/ui-schema/hints";
import {
  calendarCreateDataSchema,
  calendarDeleteDataSchema,
  calendarInviteAnswerDataSchema,
  calendarReadDataSchema,
  calendarShareDataSchema,
  calendarUpdateDataSchema,
  type CalendarEventData,
} from "./modules/calendar/data";
import { contactsReadDataSchema } from "./modules/contacts/data";
import { memoryUpdateDataSchema } from "./modules/memory/data";

// ui_hints come from here and nowhere else: one builder per action the tool protocol lists
// (calendar.read/create/update/delete/share/accept_invite/reject_invite, contacts.read,
// memory.update). Each re-reads the handler's data with its schema, because it crossed a
// process boundary; data that does not match gets no card rather than a wrong one.

type Builder = (data: unknown) => UiHints | null;

function builder<S extends z.ZodType>(schema: S, build: (data: z.output<S>) => UiHints): Builder {
  return (data) => {
    const parsed = schema.safeParse(data);
    if (parsed.success) return build(parsed.data);
    logger.warn({ issues: parsed.error.issues.slice(0, 5) }, "project_cli data does not match its schema; no ui_hints");
    return null;
  };
}

const text = (v: string | null | undefined) => (v?.trim() ? v : undefined);

const RESPONSE = { pending: "pending", accepted: "accepted", rejected: "declined" } as const;

function eventHint(e: CalendarEventData): CalendarEventHint {
  return {
    id: e.id,
    title: e.title,
    start: e.start_at,
    end: e.end_at,
    allDay: e.all_day,
    timeZone: e.time_zone,
    location: text(e.location),
    description: text(e.description),
    organizer: { name: text(e.owner.name), email: e.owner.email },
    attendees: e.attendees.map((a) => ({ name: text(a.name), email: a.email, response: RESPONSE[a.status] })),
    status: e.status,
  };
}

function eventChange(action: CalendarEventAction, event: CalendarEventData, extra: Partial<Extract<UiHints, { kind: "calendar.event" }>> = {}): UiHints {
  return { kind: "calendar.event", action, event: eventHint(event), ...extra };
}

const answer = (action: CalendarEventAction) => builder(calendarInviteAnswerDataSchema, (d) => eventChange(action, d.event));

const BUILDERS: Record<string, Builder> = {
  "calendar.read": builder(calendarReadDataSchema, (d) =>
    d.mode === "event"
      ? { kind: "calendar.events", events: [eventHint(d.event)] }
      : {
          kind: "calendar.events",
          range: { start: d.range.start_at, end: d.range.end_at, timeZone: d.range.time_zone },
          events: d.items.map(eventHint),
        },
  ),
  "calendar.create": builder(calendarCreateDataSchema, (d) => eventChange("created", d.event)),
  "calendar.update": builder(calendarUpdateDataSchema, (d) => eventChange("updated", d.event, { changedFields: d.changed_fields })),
  "calendar.delete": builder(calendarDeleteDataSchema, (d) => eventChange("deleted", d.event)),
  "calendar.share": builder(calendarShareDataSchema, (d) =>
    eventChange("shared", d.event, { sharedWith: [{ name: text(d.invite.name), email: d.invite.email }] }),
  ),
  "calendar.accept_invite": answer("invite_accepted"),
  "calendar.reject_invite": answer("invite_rejected"),
  "contacts.read": builder(contactsReadDataSchema, (d) => ({
    kind: "contacts.list",
    query: text(d.query),
    contacts: d.items.map((c) => ({
      id: c.id,
      name: c.name,
      email: text(c.email),
      phone: text(c.phone),
      company: text(c.company),
      jobTitle: text(c.job_title),
    })),
    total: d.total,
  })),
  "memory.update": builder(memoryUpdateDataSchema, (d) => ({
    kind: "memory.facts",
    action: "updated",
    facts: d.written.map((f) => ({ key: f.key, value: f.value, updatedAt: f.updated_at })),
  })),
};

/** ui_hints for a successful action, or null when the action has no card. */
export function successHints(module: string, method: string, data: unknown): UiHints | null {
  const build = Object.hasOwn(BUILDERS, `${module}.${method}`) ? BUILDERS[`${module}.${method}`] : undefined;
  return normalize(build?.(data) ?? null);
}

/**
 * An error card for a failed action that has cards. Input the model got wrong is left
 * out: the model corrects it on its own and the user has nothing to act on.
 */
export function failureHints(module: string | null, method: string | null, error: { code: string; message: string; retryable?: boolean }): UiHints | null {
  if (!module || !method || !Object.hasOwn(BUILDERS, `${module}.${method}`) || error.code === "INVALID_ACTION_INPUT") return null;
  return normalize({ kind: "error", module, method, code: error.code, message: error.message, ...(error.retryable ? { retryable: true } : {}) });
}

// Strips undefined keys and proves the hints match the schema the compiler and history trust.
function normalize(hints: UiHints | null): UiHints | null {
  if (!hints) return null;
  const parsed = uiHintsSchema.safeParse(JSON.parse(JSON.stringify(hints)));
  if (parsed.success) return parsed.data;
  logger.warn({ kind: hints.kind, issues: parsed.error.issues.slice(0, 5) }, "project_cli built invalid ui_hints; dropped");
  return null;
}
