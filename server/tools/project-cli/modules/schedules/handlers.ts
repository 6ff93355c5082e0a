import "server-only";
import { AppError } from "@/server/kernel/errors";
import { createOwnSchedule, deleteOwnSchedule, listOwnSchedules } from "@/server/schedules/manage";
import type { ScheduleView } from "@/server/schedules/schemas";
import type { ToolContext } from "../../context";
import { ToolError } from "../../errors";
import type { SchedulesCreateInput, SchedulesDeleteInput } from "./schemas";

// The user's schedules, on the call's own connection (a write commits with the record of its
// answer). The schedules room keeps the rules (cron, zone, limits); its refusals go back to the
// model as data it can act on.

type ScheduleData = Pick<ScheduleView, "id" | "name" | "message" | "cron" | "timeZone" | "runAt" | "paused" | "nextRunAt" | "lastRunAt">;

const toData = (s: ScheduleView): ScheduleData => ({
  id: s.id,
  name: s.name,
  message: s.message,
  cron: s.cron,
  timeZone: s.timeZone,
  runAt: s.runAt,
  paused: s.paused,
  nextRunAt: s.nextRunAt,
  lastRunAt: s.lastRunAt,
});

async function refusedAsData<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    if (err.code === "NOT_FOUND") throw new ToolError("SCHEDULE_NOT_FOUND", err.message);
    if (err.code === "BAD_REQUEST" || err.code === "CONFLICT") throw new ToolError("INVALID_SCHEDULE", err.message, { details: err.details?.field ? { field: err.details.field } : {} });
    throw err;
  }
}

export async function listSchedules(ctx: ToolContext): Promise<{ schedules: ScheduleData[]; count: number }> {
  const schedules = (await listOwnSchedules({ userId: ctx.userId }, ctx.db)).map(toData);
  return { schedules, count: schedules.length };
}

export async function createSchedule(ctx: ToolContext, input: SchedulesCreateInput): Promise<{ schedule: ScheduleData }> {
  const created = await refusedAsData(() =>
    createOwnSchedule(
      { userId: ctx.userId, via: "chat", message: input.message, name: input.name, cron: input.cron, runAt: input.at, timeZone: input.time_zone ?? ctx.timeZone },
      ctx.db,
    ),
  );
  return { schedule: toData(created) };
}

export async function deleteSchedule(ctx: ToolContext, input: SchedulesDeleteInput): Promise<{ deleted: string }> {
  await refusedAsData(() => deleteOwnSchedule({ userId: ctx.userId, id: input.id }, ctx.db));
  return { deleted: input.id };
}
