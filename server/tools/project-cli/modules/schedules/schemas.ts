import "server-only";
import { z } from "zod";
import { MESSAGE_LIMIT } from "@/server/schedules/schemas";
import { idField, instantField, timeZoneField } from "../../fields";

// The methods' inputs, built on first use (see ../../module.ts). Whether a cron expression is
// valid (and not too frequent) is the schedules room's check, answered as INVALID_SCHEDULE.

export const schedulesListInput = () => z.strictObject({}).describe("List the user's schedules (reminders and recurring requests), with when each runs next");

export const schedulesCreateInput = () =>
  z
    .strictObject({
      message: z
        .string()
        .trim()
        .min(1)
        .max(MESSAGE_LIMIT)
        .describe("The request to run at each time, in the user's words as if they sent it then, e.g. “summarize my week”"),
      cron: z
        .string()
        .trim()
        .min(1)
        .max(200)
        .optional()
        .describe("When it repeats: a five-field cron expression (minute hour day-of-month month day-of-week) read in time_zone, e.g. “0 9 * * 1” for every Monday at 09:00"),
      at: instantField().optional().describe("A one-off time instead of cron: ISO-8601 with an offset, e.g. 2026-04-21T10:00:00+08:00"),
      time_zone: timeZoneField().optional().describe("IANA zone the cron expression is read in; the user's zone when absent"),
      name: z.string().trim().min(1).max(120).optional().describe("A short label for the list, e.g. “Weekly summary”"),
    })
    .refine((i) => (i.cron === undefined) !== (i.at === undefined), { error: "Give either cron (repeating) or at (once), not both" })
    .describe("Schedule a request to run later: once (at) or repeatedly (cron); each time starts a new conversation with the message");

export const schedulesDeleteInput = () => z.strictObject({ id: idField().describe("The schedule's id, from schedules.list or schedules.create") }).describe("Delete one of the user's schedules");

export type SchedulesCreateInput = z.infer<ReturnType<typeof schedulesCreateInput>>;
export type SchedulesDeleteInput = z.infer<ReturnType<typeof schedulesDeleteInput>>;
