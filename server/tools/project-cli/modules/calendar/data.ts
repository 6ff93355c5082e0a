import "server-only";
import { z } from "zod";

// The data calendar methods return, read back by the post-processor to build ui_hints.

export const inviteStatusSchema = z.enum(["pending", "accepted", "rejected"]);

const personSchema = z.object({ email: z.string(), name: z.string().nullable() });

export const calendarEventDataSchema = z.object({
  id: z.string(),
  title: z.string(),
  start_at: z.string(),
  end_at: z.string(),
  time_zone: z.string(),
  all_day: z.boolean(),
  location: z.string().nullable(),
  description: z.string().nullable(),
  status: z.enum(["confirmed", "tentative", "cancelled"]),
  owner: personSchema,
  is_owner: z.boolean(),
  invite: z.object({ id: z.string(), status: inviteStatusSchema }).nullable(),
  attendees: z.array(personSchema.extend({ status: inviteStatusSchema })),
});

export const calendarReadDataSchema = z.discriminatedUnion("mode", [
  z.object({
    mode: z.enum(["day", "range"]),
    range: z.object({ start_at: z.string(), end_at: z.string(), time_zone: z.string() }),
    items: z.array(calendarEventDataSchema),
    count: z.number(),
    truncated: z.boolean(),
    pending_invites: z.array(calendarEventDataSchema),
  }),
  z.object({ mode: z.literal("event"), event: calendarEventDataSchema }),
]);

export const calendarCreateDataSchema = z.object({
  event: calendarEventDataSchema,
  invited: z.array(personSchema),
  not_invited: z.array(z.object({ email: z.string(), reason: z.string() })),
});

export const calendarUpdateDataSchema = z.object({ event: calendarEventDataSchema, changed_fields: z.array(z.string()) });
export const calendarDeleteDataSchema = z.object({ deleted: z.literal(true), event: calendarEventDataSchema });
export const calendarShareDataSchema = z.object({
  event: calendarEventDataSchema,
  invite: personSchema.extend({ id: z.string(), status: inviteStatusSchema }),
  already_invited: z.boolean(),
});
export const calendarInviteAnswerDataSchema = z.object({ event: calendarEventDataSchema });

export type CalendarEventData = z.infer<typeof calendarEventDataSchema>;
export type CalendarReadData = z.infer<typeof calendarReadDataSchema>;
export type CalendarCreateData = z.infer<typeof calendarCreateDataSchema>;
export type CalendarUpdateData = z.infer<typeof calendarUpdateDataSchema>;
export type CalendarDeleteData = z.infer<typeof calendarDeleteDataSchema>;
export type CalendarShareData = z.infer<typeof calendarShareDataSchema>;
export type CalendarInviteAnswerData = z.infer<typeof calendarInviteAnswerDataSchema>;
