import "server-only";
import { z } from "zod";
import { createSchedule, deleteSchedule, getSchedule, listSchedules, updateSchedule } from "../../schedules/service";
import { CreateScheduleSchema, ScheduleListSchema, ScheduleSchema, UpdateScheduleSchema } from "../../schedules/schemas";
import { jsonBody } from "../bodies";
import { endpoint } from "../endpoint";
import { jsonResponse } from "../json";

// The caller's schedules over REST (docs/schedules.md), for API keys and browser sessions alike:
// each caller sees and changes only their own.

const TAG = "Schedules";
const SCHEDULE_ID = { scheduleId: "The schedule's id." };
const Deleted = z.object({ deleted: z.literal(true) }).meta({ id: "DeletedSchedule" });

/** POST /api/v1/schedules: a schedule that starts a run with its message at every due time. */
export const createScheduleEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/schedules",
  auth: "caller",
  body: jsonBody(CreateScheduleSchema),
  doc: {
    operationId: "createSchedule",
    tag: TAG,
    summary: "Create a schedule",
    description:
      "A cron expression in an IANA time zone, or one time (`runAt`): at each due time a run starts with `message`, on a new thread or on `threadId`. Each due time fires once, across instances; runs reach external runners with the trigger source `scheduler`.",
    responses: { 201: { description: "The schedule, with its next due time.", json: ScheduleSchema } },
    errors: [400, 409],
  },
  handle: async ({ principal, body }) => jsonResponse(await createSchedule({ ...body, userId: principal.userId, via: principal.via }), 201),
});

/** GET /api/v1/schedules: the caller's schedules, newest first. */
export const listSchedulesEndpoint = endpoint({
  method: "GET",
  path: "/api/v1/schedules",
  auth: "caller",
  doc: { operationId: "listSchedules", tag: TAG, summary: "List schedules", responses: { 200: { description: "The caller's schedules, newest first.", json: ScheduleListSchema } } },
  handle: async ({ principal }) => jsonResponse({ items: await listSchedules({ userId: principal.userId }) }),
});

/** GET /api/v1/schedules/{scheduleId}. */
export const getScheduleEndpoint = endpoint({
  method: "GET",
  path: "/api/v1/schedules/[scheduleId]",
  auth: "caller",
  doc: { operationId: "getSchedule", tag: TAG, summary: "Get a schedule", params: SCHEDULE_ID, responses: { 200: { description: "The schedule, with its next due time and last run.", json: ScheduleSchema } }, errors: [404] },
  handle: async ({ principal, params }) => jsonResponse(await getSchedule({ userId: principal.userId, id: params.scheduleId! })),
});

/** PATCH /api/v1/schedules/{scheduleId}: its words, its timing, paused or resumed. */
export const updateScheduleEndpoint = endpoint({
  method: "PATCH",
  path: "/api/v1/schedules/[scheduleId]",
  auth: "caller",
  body: jsonBody(UpdateScheduleSchema),
  doc: {
    operationId: "updateSchedule",
    tag: TAG,
    summary: "Change, pause or resume a schedule",
    description: "`paused: true` pauses it; `paused: false` resumes it from now on (the times missed while paused are skipped). A new timing is due from now on.",
    params: SCHEDULE_ID,
    responses: { 200: { description: "The schedule as it is now.", json: ScheduleSchema } },
    errors: [400, 404],
  },
  handle: async ({ principal, params, body }) => jsonResponse(await updateSchedule({ ...body, userId: principal.userId, id: params.scheduleId! })),
});

/** DELETE /api/v1/schedules/{scheduleId}: the schedule (the runs it started stay). */
export const deleteScheduleEndpoint = endpoint({
  method: "DELETE",
  path: "/api/v1/schedules/[scheduleId]",
  auth: "caller",
  doc: { operationId: "deleteSchedule", tag: TAG, summary: "Delete a schedule", params: SCHEDULE_ID, responses: { 200: { description: "Deleted; the runs it started and their threads stay.", json: Deleted } }, errors: [404] },
  async handle({ principal, params }) {
    await deleteSchedule({ userId: principal.userId, id: params.scheduleId! });
    return jsonResponse({ deleted: true });
  },
});
