import "server-only";
import { hintsFrom, method, optionalText, type ModuleDefinition, type UiHints } from "../../module";
import { asksAnswer, asksCreate, asksDelete, asksShare, asksUpdate } from "./asks";
import { calendarCards, type CalendarEventAction, type CalendarEventChangeHint, type CalendarEventHint } from "./cards";
import {
  calendarCreateDataSchema,
  calendarDeleteDataSchema,
  calendarInviteAnswerDataSchema,
  calendarReadDataSchema,
  calendarShareDataSchema,
  calendarUpdateDataSchema,
  type CalendarEventData,
} from "./data";
import { acceptCalendarInvite, rejectCalendarInvite, shareCalendarEvent } from "./invites";
import { readCalendar } from "./read";
import {
  calendarCreateInput,
  calendarDeleteInput,
  calendarInviteAnswerInput,
  calendarReadInput,
  calendarShareInput,
  calendarUpdateInput,
} from "./schemas";
import { createCalendarEvent, deleteCalendarEvent, updateCalendarEvent } from "./write";

const EXAMPLE_EVENT_ID = "6f1c2b1e-8d3a-4c55-9a51-0b7c1e2f3a4d";

const RESPONSE = { pending: "pending", accepted: "accepted", rejected: "declined" } as const;

function eventHint(e: CalendarEventData): CalendarEventHint {
  return {
    id: e.id,
    title: e.title,
    start: e.start_at,
    end: e.end_at,
    allDay: e.all_day,
    timeZone: e.time_zone,
    location: optionalText(e.location),
    description: optionalText(e.description),
    organizer: { name: optionalText(e.owner.name), email: e.owner.email },
    attendees: e.attendees.map((a) => ({ name: optionalText(a.name), email: a.email, response: RESPONSE[a.status] })),
    status: e.status,
  };
}

function eventChange(action: CalendarEventAction, event: CalendarEventData, extra: Partial<CalendarEventChangeHint> = {}): UiHints {
  return { kind: "calendar.event", action, event: eventHint(event), ...extra };
}

const answer = (action: CalendarEventAction) => hintsFrom(calendarInviteAnswerDataSchema, (d) => eventChange(action, d.event));

export const calendarModule: ModuleDefinition = {
  name: "calendar",
  subject: "calendar",
  summary: "The user's calendar: read a day, a range or one event; create, change, delete and share events; answer invitations.",
  methods: {
    read: method({
      kind: "read",
      input: calendarReadInput,
      handler: readCalendar,
      hints: hintsFrom(calendarReadDataSchema, (d) =>
        d.mode === "event"
          ? { kind: "calendar.events", events: [eventHint(d.event)] }
          : {
              kind: "calendar.events",
              range: { start: d.range.start_at, end: d.range.end_at, timeZone: d.range.time_zone },
              events: d.items.map(eventHint),
            },
      ),
      example: { mode: "range", start_at: "2026-04-21T00:00:00+08:00", end_at: "2026-04-22T00:00:00+08:00" },
      pitfalls: ["A range's end_at is exclusive and may be at most 92 days after start_at.", "Invitations awaiting an answer are listed too: check each event's status before calling one confirmed."],
    }),
    create: method({
      kind: "write",
      input: calendarCreateInput,
      handler: createCalendarEvent,
      // Only when it invites someone.
      involvesOthers: (input) => (input.attendees?.length ?? 0) > 0,
      asks: asksCreate,
      shows: ["start_at", "end_at", "duration_minutes", "time_zone", "location", "description"],
      hints: hintsFrom(calendarCreateDataSchema, (d) => eventChange("created", d.event)),
      example: { title: "Project sync", start_at: "2026-04-21T10:00:00+08:00", duration_minutes: 30, attendees: ["Bob@Example.com"] },
      pitfalls: ["Give exactly one of end_at or duration_minutes.", "Attendees must be Dispatch users: look them up with contacts.read; the result's not_invited lists those who could not be invited."],
    }),
    update: method({
      kind: "write",
      input: calendarUpdateInput,
      handler: updateCalendarEvent,
      // The event is not read here, and an update of an event others were invited to reaches them.
      involvesOthers: true,
      asks: asksUpdate,
      shows: ["start_at", "end_at", "duration_minutes", "time_zone", "location", "description"],
      hints: hintsFrom(calendarUpdateDataSchema, (d) => eventChange("updated", d.event, { changedFields: d.changed_fields })),
      example: { event_id: EXAMPLE_EVENT_ID, location: null, start_at: "2026-04-21T11:00:00Z" },
      pitfalls: ["Only the owner can change an event; an invitation is answered with accept_invite or reject_invite instead.", "null clears location or description; leaving a field out keeps it."],
    }),
    delete: method({
      kind: "write",
      input: calendarDeleteInput,
      handler: deleteCalendarEvent,
      // A deletion takes the event's invitations with it.
      involvesOthers: true,
      asks: asksDelete,
      shows: [],
      hints: hintsFrom(calendarDeleteDataSchema, (d) => eventChange("deleted", d.event)),
      example: { event_id: EXAMPLE_EVENT_ID },
    }),
    share: method({
      kind: "write",
      input: calendarShareInput,
      handler: shareCalendarEvent,
      involvesOthers: true,
      asks: asksShare,
      shows: [],
      hints: hintsFrom(calendarShareDataSchema, (d) =>
        eventChange("shared", d.event, { sharedWith: [{ name: optionalText(d.invite.name), email: d.invite.email }] }),
      ),
      example: { event_id: EXAMPLE_EVENT_ID, email: "bob@example.com" },
    }),
    accept_invite: method({
      kind: "write",
      input: () => calendarInviteAnswerInput().describe("Accept an invitation the user received, by invitation or event id"),
      handler: acceptCalendarInvite,
      involvesOthers: true,
      asks: () => asksAnswer(true),
      shows: [],
      hints: answer("invite_accepted"),
      example: { invite_id: EXAMPLE_EVENT_ID },
    }),
    reject_invite: method({
      kind: "write",
      input: () => calendarInviteAnswerInput().describe("Decline an invitation the user received, by invitation or event id"),
      handler: rejectCalendarInvite,
      involvesOthers: true,
      asks: () => asksAnswer(false),
      shows: [],
      hints: answer("invite_rejected"),
      example: { event_id: EXAMPLE_EVENT_ID },
    }),
  },
  cards: calendarCards,
  rules: [
    "Find the event's id with calendar.read first; never invent ids.",
    "Interpret relative dates (\"tomorrow\", \"on Friday\", \"this week\") in the user's time zone (the prompt's Now line), and pass that zone wherever a method takes time_zone.",
  ],
};
