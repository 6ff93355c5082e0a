import "server-only";
import { z } from "zod";
import { isoDateTimeSchema, timeZoneSchema } from "./schema";

// ui_hints: what the project_cli post-processor says about a tool result, in domain terms.
// They live in `metadata.tool_agent_output.ui_hints`, are compiled to UiSchema on the way
// out, and never reach the browser. Plain JSON only, because rows are replayed from the
// database long after the code that wrote them changed.

const text = () => z.string().trim().min(1).max(4_000);

const personHintSchema = z.strictObject({
  name: text().optional().describe("Display name"),
  email: text().optional().describe("Email address"),
});

export const calendarEventHintSchema = z
  .strictObject({
    id: text().optional().describe("Event id from the calendar handler"),
    title: text().describe("Event title"),
    start: isoDateTimeSchema.describe("Start instant"),
    end: isoDateTimeSchema.optional().describe("End instant"),
    allDay: z.boolean().optional().describe("True for date-only events"),
    timeZone: timeZoneSchema.optional().describe("Zone the event is scheduled in"),
    location: text().optional().describe("Where it happens"),
    description: text().optional().describe("Notes on the event"),
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

export const contactHintSchema = z
  .strictObject({
    id: text().optional().describe("Contact id"),
    name: text().describe("Display name"),
    email: text().optional().describe("Email address"),
    phone: text().optional().describe("Phone number"),
    company: text().optional().describe("Organisation"),
    jobTitle: text().optional().describe("Role at the organisation"),
  })
  .describe("One contact as the contacts handler returned it");

export const memoryFactHintSchema = z
  .strictObject({
    key: text().describe("What the fact is about, e.g. preferred_meeting_time"),
    value: text().describe("The fact itself"),
    updatedAt: isoDateTimeSchema.optional().describe("When the fact was last written"),
  })
  .describe("One fact the agent keeps about the user");

export const calendarEventsHintSchema = z
  .strictObject({
    kind: z.literal("calendar.events").describe("Hint kind; picks the card template"),
    title: text().optional().describe("Heading for the card; a generic one is used when absent"),
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

export const calendarEventActionSchema = z.enum([
  "created",
  "updated",
  "deleted",
  "shared",
  "invite_accepted",
  "invite_rejected",
]);

export const calendarEventChangeHintSchema = z
  .strictObject({
    kind: z.literal("calendar.event").describe("Hint kind; picks the card template"),
    action: calendarEventActionSchema.describe("What the calendar method did to the event"),
    event: calendarEventHintSchema.describe("The event after the change (before it, for deleted)"),
    changedFields: z.array(text()).optional().describe("For updated: names of the fields that changed"),
    sharedWith: z.array(personHintSchema).optional().describe("For shared: people who were invited"),
  })
  .describe("calendar.create/update/delete/share/accept_invite/reject_invite");

export const contactsListHintSchema = z
  .strictObject({
    kind: z.literal("contacts.list").describe("Hint kind; picks the card template"),
    query: text().optional().describe("Search text, when contacts.read searched"),
    contacts: z.array(contactHintSchema).describe("Contacts found, in display order; may be empty"),
    total: z.number().int().min(0).optional().describe("Matches in total, when more exist than were returned"),
  })
  .describe("contacts.read: search results or the contact list");

export const memoryFactsHintSchema = z
  .strictObject({
    kind: z.literal("memory.facts").describe("Hint kind; picks the card template"),
    action: z.enum(["read", "updated"]).describe("read for memory.read, updated for memory.update"),
    facts: z.array(memoryFactHintSchema).describe("Facts read, or the facts written; may be empty"),
  })
  .describe("memory.read and memory.update");

export const errorHintSchema = z
  .strictObject({
    kind: z.literal("error").describe("Hint kind; picks the card template"),
    module: text().optional().describe("project_cli module that failed, e.g. calendar"),
    method: text().optional().describe("Method that failed, e.g. read"),
    code: text().describe("Machine error code, e.g. INVALID_ACTION_INPUT"),
    message: text().describe("What went wrong, safe to show to the user"),
    retryable: z.boolean().optional().describe("True when trying again may succeed"),
  })
  .describe("A failed tool call");

export const uiHintsSchema = z.discriminatedUnion("kind", [
  calendarEventsHintSchema,
  calendarEventChangeHintSchema,
  contactsListHintSchema,
  memoryFactsHintSchema,
  errorHintSchema,
]);

export type UiHints = z.infer<typeof uiHintsSchema>;
export type UiHintsKind = UiHints["kind"];
export type CalendarEventHint = z.infer<typeof calendarEventHintSchema>;
export type CalendarEventAction = z.infer<typeof calendarEventActionSchema>;
export type ContactHint = z.infer<typeof contactHintSchema>;
export type MemoryFactHint = z.infer<typeof memoryFactHintSchema>;
