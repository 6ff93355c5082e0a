import "server-only";
import { z } from "zod";
import { createTRPCRouter, protectedProcedure } from "../init";
import { deleteThread, listThreads, renameThread } from "../../threads/service/threads";

// The signed-in user's own chats; every procedure is scoped to ctx.principal.userId.
export const threadsRouter = createTRPCRouter({
  list: protectedProcedure
    .input(
      z.object({
        cursor: z.string().max(80).nullish().describe("nextCursor of the previous page"),
        limit: z.number().int().min(1).max(100).default(30),
      }),
    )
    .query(({ ctx, input }) => listThreads({ userId: ctx.principal.userId, cursor: input.cursor, limit: input.limit })),
  rename: protectedProcedure
    .input(z.object({ id: z.string().uuid(), title: z.string().max(200) }))
    .mutation(({ ctx, input }) => renameThread({ userId: ctx.principal.userId, id: input.id, title: input.title })),
  delete: protectedProcedure
    .input(z.object({ id: z.string().uuid() }))
    .mutation(({ ctx, input }) => deleteThread({ userId: ctx.principal.userId, id: input.id })),
});
