import { z } from "zod";

// What schedules take and give (docs/schedules.md): the REST routes, the chat settings' tRPC
// procedures and the project_cli schedules module validate with these, and the OpenAPI document
// is made from them. Whether a cron expression and a time zone are valid is the service's check
// (croner and the runtime's time zone data), answered as a 400 naming the field.

export const MESSAGE_LIMIT = 4_000;

const cron = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .meta({ description: "A cron expression: five fields (minute hour day-of-month month day-of-week), or six with seconds first; `@daily` and the like too.", example: "0 9 * * 1" });
const timeZone = z.string().trim().min(1).max(64).meta({ description: "The IANA time zone the cron expression is read in.", example: "Europe/Berlin" });
const runAt = z.iso
  .datetime({ offset: true, error: "runAt must be an ISO 8601 date-time with a time zone offset (2026-12-24T09:00:00+01:00)" })
  .meta({ description: "A one-off time, instead of a cron expression: the schedule fires once (at once when it is past)." });
const message = z.string().trim().min(1, { error: "message must not be empty" }).max(MESSAGE_LIMIT).meta({ description: "The user message each run starts with." });
const name = z.string().trim().max(120).meta({ description: "A label for people, shown in lists." });

export const CreateScheduleSchema = z
  .strictObject({
    name: name.optional(),
    message,
    cron: cron.optional(),
    timeZone: timeZone.optional().meta({ description: "The IANA time zone the cron expression is read in; UTC when left out." }),
    runAt: runAt.optional(),
    threadId: z.uuid({ error: "threadId must be the id of one of your threads (a UUID)" }).optional().meta({ description: "Every run goes to this thread of the caller's; left out: a new thread for each run." }),
    paused: z.boolean().optional().meta({ description: "Create it paused." }),
  })
  .refine((s) => (s.cron === undefined) !== (s.runAt === undefined), { error: "Give either cron (with timeZone) or runAt, not both and not neither", path: ["cron"] })
  .meta({ id: "CreateSchedule" });
export type CreateSchedule = z.infer<typeof CreateScheduleSchema>;

export const UpdateScheduleSchema = z
  .strictObject({
    name: name.nullable().optional(),
    message: message.optional(),
    cron: cron.optional(),
    timeZone: timeZone.optional(),
    runAt: runAt.optional(),
    paused: z.boolean().optional().meta({ description: "true pauses the schedule (it fires no more); false resumes it from now on (missed times are skipped)." }),
  })
  .refine((s) => s.cron === undefined || s.runAt === undefined, { error: "Give either cron or runAt, not both", path: ["cron"] })
  .meta({ id: "UpdateSchedule" });
export type UpdateSchedule = z.infer<typeof UpdateScheduleSchema>;

export const ScheduleSchema = z
  .object({
    id: z.uuid(),
    name: z.string().nullable(),
    message: z.string(),
    cron: z.string().nullable(),
    timeZone: z.string(),
    runAt: z.string().nullable().meta({ description: "The one-off time, for a schedule without cron." }),
    threadId: z.string().nullable().meta({ description: "The thread every run goes to; null: a new thread each time." }),
    paused: z.boolean(),
    nextRunAt: z.string().nullable().meta({ description: "When it fires next; null while paused, or once a one-off fired." }),
    lastRunAt: z.string().nullable().meta({ description: "The due time it last fired for." }),
    lastRunId: z.string().nullable().meta({ description: "The runId of the run it last started (GET /api/v1/agent/runs/{runId})." }),
    lastThreadId: z.string().nullable(),
    lastError: z.string().nullable().meta({ description: "Why the last due time started no run (its thread was busy or gone, ...)." }),
    runCount: z.number().int(),
    createdAt: z.string(),
  })
  .meta({ id: "Schedule" });
export type ScheduleView = z.infer<typeof ScheduleSchema>;

export const ScheduleListSchema = z.object({ items: z.array(ScheduleSchema) }).meta({ id: "ScheduleList" });
