import "server-only";
import { z } from "zod";
import { deleteSchedule, listEverySchedule, listSchedules, updateSchedule } from "../../schedules/service";
import { adminProcedure, createTRPCRouter, protectedProcedure } from "../init";

// Schedules (docs/schedules.md) in the chat settings, each user's own (list, pause or resume,
// delete), and in the console, everyone's. Making one is REST's or the chat's (project_cli).

const id = z.uuid();

export const schedulesRouter = createTRPCRouter({
  mine: protectedProcedure.query(({ ctx }) => listSchedules({ userId: ctx.principal.userId })),
  setPaused: protectedProcedure.input(z.object({ id, paused: z.boolean() })).mutation(({ ctx, input }) => updateSchedule({ ...input, userId: ctx.principal.userId })),
  remove: protectedProcedure.input(z.object({ id })).mutation(({ ctx, input }) => deleteSchedule({ ...input, userId: ctx.principal.userId })),
  all: adminProcedure.query(() => listEverySchedule()),
  adminSetPaused: adminProcedure.input(z.object({ id, paused: z.boolean() })).mutation(({ input }) => updateSchedule({ ...input, userId: null })),
  adminRemove: adminProcedure.input(z.object({ id })).mutation(({ input }) => deleteSchedule({ ...input, userId: null })),
});
