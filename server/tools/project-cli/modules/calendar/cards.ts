import "server-only";
import { z } from "zod";
import { body, caption, clip, countCaption, LONG, short, SHORT, title } from "@/server/ui-schema/compile";
import type { Translations } from "@/server/ui-schema/messages";
import { isoDateTimeSchema, MAX_CHILDREN, timeZoneSchema, type UiNodeInput } from "@/server/ui-schema/schema";
import { card, hintKind, hintText } from "../../module";

// The calendar's cards: the hint kinds its methods produce (domain facts, language-free) and
// how each becomes UiSchema nodes, in the card's language.

const personHintSchema = z.strictObject({
  name: hintText().optional().describe("Display name"),
  email: hintText().optional().describe("Email address"),
});

const calendarEventHintSchema = z
  .strictObject({
    id: hintText().optional().describe("Event id from the calendar handler"),
    title: hintText().describe("Event title"),
    start: isoDateTimeSchema.describe("Start instant"),
    end: isoDateTimeSchema.optional().describe("End instant"),
    allDay: z.boolean().optional().describe("True for date-only events"),
    timeZone: timeZoneSchema.optional().describe("Zone the event is scheduled in"),
    location: hintText().optional().describe("Where it happens"),
    description: hintText().optional().describe("Notes on the event"),
    organizer: personHintSchema.optional().describe("Owner of the event"),
    attendees: z
      .array(
        personHintSchema.extend({
          response: z.enum(["accepted", "declined", "tentative", "pending"]).optional().describe("Answer to the invitation"),
        }),
      )
      .optional()
      .describe("Invited people"),
    status: z.enum(["confirmed", "tentative", "cancelled"]).optional().describe("Whether the event will happen"),
  })
  .describe("One event as the calendar handler returned it");

const calendarEventsHintSchema = z
  .strictObject({
    kind: hintKind("calendar.events"),
    title: hintText().optional().describe("Heading for the card; a generic one is used when absent"),
    range: z
      .strictObject({
        start: isoDateTimeSchema.describe("First instant of the period read"),
        end: isoDateTimeSchema.describe("Instant the period read ends"),
        timeZone: timeZoneSchema.optional().describe("Zone the period was asked in"),
      })
      .optional()
      .describe("Period that was read (calendar.read day/range)"),
    events: z.array(calendarEventHintSchema).describe("Events found, in display order; may be empty"),
  })
  .describe("calendar.read: events of a day, a range or a single event");

export const calendarEventActionSchema = z.enum(["created", "updated", "deleted", "shared", "invite_accepted", "invite_rejected"]);

const calendarEventChangeHintSchema = z
  .strictObject({
    kind: hintKind("calendar.event"),
    action: calendarEventActionSchema.describe("What the calendar method did to the event"),
    event: calendarEventHintSchema.describe("The event after the change (before it, for deleted)"),
    changedFields: z.array(hintText()).optional().describe("For updated: names of the fields that changed"),
    sharedWith: z.array(personHintSchema).optional().describe("For shared: people who were invited"),
  })
  .describe("calendar.create/update/delete/share/accept_invite/reject_invite");

export type CalendarEventHint = z.infer<typeof calendarEventHintSchema>;
export type CalendarEventAction = z.infer<typeof calendarEventActionSchema>;
export type CalendarEventChangeHint = z.infer<typeof calendarEventChangeHintSchema>;

type ActionWords = { title: string };
type Words = {
  calendarTitle: string;
  events: string;
  eventsCount: (n: number) => string;
  noEvents: string;
  /** The language dates of a period are written in. */
  dateLocale: string;
  eventActions: Record<CalendarEventAction, ActionWords>;
  changed: string;
  sharedWith: string;
};

const words: Translations<Words> = {
  en: {
    calendarTitle: "Calendar",
    events: "Events",
    eventsCount: (n) => (n === 1 ? "1 event" : `${n} events`),
    noEvents: "No events in this period.",
    dateLocale: "en-US",
    eventActions: {
      created: { title: "Event created" },
      updated: { title: "Event updated" },
      deleted: { title: "Event deleted" },
      shared: { title: "Event shared" },
      invite_accepted: { title: "Invitation accepted" },
      invite_rejected: { title: "Invitation declined" },
    },
    changed: "Changed",
    sharedWith: "Shared with",
  },
  zh: {
    calendarTitle: "日程",
    events: "日程列表",
    eventsCount: (n) => `${n} 个日程`,
    noEvents: "这段时间没有日程。",
    dateLocale: "zh-CN",
    eventActions: {
      created: { title: "日程已创建" },
      updated: { title: "日程已更新" },
      deleted: { title: "日程已删除" },
      shared: { title: "日程已共享" },
      invite_accepted: { title: "已接受邀请" },
      invite_rejected: { title: "已拒绝邀请" },
    },
    changed: "已修改",
    sharedWith: "共享给",
  },
};

function eventNode(event: CalendarEventHint): UiNodeInput {
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

const DAY_MS = 86_400_000;

function offsetMs(iso: string): number {
  const m = /([+-])(\d{2}):?(\d{2})$/.exec(iso);
  return m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) * 60_000 : 0;
}

/** The days a read covered, in its zone; the end is exclusive (midnight after the last day). */
function periodText(range: { start: string; end: string; timeZone?: string }, locale: string): { text: string; oneDay: boolean } | null {
  const start = Date.parse(range.start);
  const end = Date.parse(range.end);
  if (Number.isNaN(start) || Number.isNaN(end) || end <= start) return null;
  // Without a zone name, the start's own offset says which days they were.
  const offset = range.timeZone ? 0 : offsetMs(range.start);
  const day = (ms: number, weekday: "long" | "short") =>
    new Intl.DateTimeFormat(locale, { weekday, month: "short", day: "numeric", timeZone: range.timeZone ?? "UTC" }).format(ms + offset);
  // A day is 23 to 25 hours around a daylight-saving change.
  if (end - start <= DAY_MS + 3_600_000) return { text: day(start, "long"), oneDay: true };
  return { text: `${day(start, "short")} – ${day(end - 1, "short")}`, oneDay: false };
}

export const calendarCards = [
  card(words, {
    schema: calendarEventsHintSchema,
    status: () => "info",
    build: (hints, m, common) => {
      // A period reads as a person says it: "Friday, Nov 27", or "Mon, Nov 23 – Sun, Nov 29".
      const period = hints.range ? periodText(hints.range, m.dateLocale) : null;
      const nodes: UiNodeInput[] = [title(hints.title ?? period?.text ?? m.calendarTitle)];
      if (period && !period.oneDay) nodes.push(caption(period.text));
      if (hints.events.length === 0) {
        nodes.push(body(m.noEvents));
        return nodes;
      }
      nodes.push(caption(countCaption(hints.events.length, hints.events.length, m.eventsCount, common)));
      nodes.push({ type: "list", label: m.events, items: hints.events.slice(0, MAX_CHILDREN).map(eventNode) });
      return nodes;
    },
  }),
  card(words, {
    schema: calendarEventChangeHintSchema,
    status: () => "success",
    build: (hints, m) => {
      const action = m.eventActions[hints.action];
      // The title says what happened; a badge repeating it would only add noise.
      const nodes: UiNodeInput[] = [title(action.title), eventNode(hints.event)];
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
    },
  }),
];
