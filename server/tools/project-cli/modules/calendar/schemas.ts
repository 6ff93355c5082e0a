import "server-only";
import { z } from "zod";
import { dateField, emailField, idField, instantField, timeZoneField } from "../../fields";

// The methods' inputs: strict (an unknown key is an error the model can correct). Each is built
// on first use, so a process builds only the schemas its calls need (see ../../module.ts); the data
// the handlers return is described in data.ts.

const MAX_RANGE_DAYS = 92;
const MAX_EVENT_MINUTES = 14 * 24 * 60;
const DAY_MS = 86_400_000;

const ms = (iso: string) => Date.parse(iso);
const title = () => z.string().trim().min(1).max(200).describe("Event title");
const location = () => z.string().trim().max(500).describe("Where it happens");
const description = () => z.string().trim().max(4_000).describe("Notes on the event");
const durationMinutes = () =>
  z.number().int().min(1).max(MAX_EVENT_MINUTES).describe("Length in minutes, instead of end_at");
const displayZone = () => timeZoneField().describe("IANA zone to show times in; the user's zone when absent");

export const calendarReadInput = () =>
  z
    .discriminatedUnion("mode", [
      z.strictObject({
        mode: z.literal("day").describe("One calendar day"),
        date: dateField().describe("The day, YYYY-MM-DD"),
        time_zone: timeZoneField().optional().describe("IANA zone the day is in; the user's zone when absent"),
      }),
      z
        .strictObject({
          mode: z.literal("range").describe("Any period up to 92 days"),
          start_at: instantField().describe("Start of the period, with offset"),
          end_at: instantField().describe("End of the period (exclusive), with offset"),
          time_zone: displayZone().optional(),
        })
        .refine((v) => ms(v.end_at) > ms(v.start_at), { path: ["end_at"], message: "end_at must be after start_at" })
        .refine((v) => ms(v.end_at) - ms(v.start_at) <= MAX_RANGE_DAYS * DAY_MS, {
          path: ["end_at"],
          message: `A range may span at most ${MAX_RANGE_DAYS} days`,
        }),
      z.strictObject({
        mode: z.literal("event").describe("One event by id"),
        event_id: idField().describe("Event id"),
      }),
    ])
    .describe("Read the user's events (owned or accepted, plus invitations awaiting an answer): a day, a range, or one event");

export const calendarCreateInput = () =>
  z
    .strictObject({
      title: title(),
      start_at: instantField().describe("Start, with offset"),
      end_at: instantField().optional().describe("End, with offset; or give duration_minutes"),
      duration_minutes: durationMinutes().optional(),
      time_zone: timeZoneField().optional().describe("IANA zone the event is scheduled in; the user's zone when absent"),
      location: location().optional(),
      description: description().optional(),
      attendees: z.array(emailField()).max(50).optional().describe("Emails of other Dispatch users to invite"),
    })
    .refine((v) => (v.end_at === undefined) !== (v.duration_minutes === undefined), {
      path: ["end_at"],
      message: "Give exactly one of end_at or duration_minutes",
    })
    .refine((v) => v.end_at === undefined || ms(v.end_at) > ms(v.start_at), { path: ["end_at"], message: "end_at must be after start_at" })
    .refine((v) => v.end_at === undefined || ms(v.end_at) - ms(v.start_at) <= MAX_EVENT_MINUTES * 60_000, {
      path: ["end_at"],
      message: "An event may last at most 14 days",
    })
    .describe("Create an event owned by the user, optionally inviting other users");

export const calendarUpdateInput = () =>
  z
    .strictObject({
      event_id: idField().describe("Event to change (the user must own it)"),
      title: title().optional(),
      start_at: instantField().optional().describe("New start, with offset; the duration is kept when end_at is absent"),
      end_at: instantField().optional().describe("New end, with offset"),
      duration_minutes: durationMinutes().optional(),
      time_zone: timeZoneField().optional().describe("New IANA zone for the event"),
      location: location().nullable().optional().describe("New location; null clears it"),
      description: description().nullable().optional().describe("New notes; null clears them"),
      status: z.enum(["confirmed", "tentative", "cancelled"]).optional().describe("Whether the event will happen"),
    })
    .refine((v) => Object.keys(v).some((k) => k !== "event_id"), { message: "Give at least one field to change" })
    .refine((v) => v.end_at === undefined || v.duration_minutes === undefined, {
      path: ["end_at"],
      message: "Give end_at or duration_minutes, not both",
    })
    .describe("Change fields of an event the user owns");

export const calendarDeleteInput = () =>
  z
    .strictObject({ event_id: idField().describe("Event to delete (the user must own it)") })
    .describe("Delete an event the user owns; its invitations go with it");

export const calendarShareInput = () =>
  z
    .strictObject({
      event_id: idField().describe("Event to share (the user must own it)"),
      email: emailField().describe("Email of the Dispatch user to invite"),
    })
    .describe("Invite another Dispatch user to an event the user owns");

export const calendarInviteAnswerInput = () =>
  z
    .union(
      [
        z.strictObject({ invite_id: idField().describe("Invitation id") }),
        z.strictObject({ event_id: idField().describe("Id of the event the user was invited to") }),
      ],
      { error: "Give exactly one of invite_id or event_id" },
    )
    .describe("An invitation the user received, by invitation or event id");

export type CalendarReadInput = z.infer<ReturnType<typeof calendarReadInput>>;
export type CalendarCreateInput = z.infer<ReturnType<typeof calendarCreateInput>>;
export type CalendarUpdateInput = z.infer<ReturnType<typeof calendarUpdateInput>>;
export type CalendarInviteAnswerInput = z.infer<ReturnType<typeof calendarInviteAnswerInput>>;
