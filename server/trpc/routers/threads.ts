import "server-only";
import { z } from "zod";
import { createTRPCRouter, protectedProcedure } from "../init";
import { deleteThread, listThreads, renameThread } from "../../threads/service/threads";
import { searchThreads } from "../../threads/service/thread-api";
import { switchBranch } from "../../branches/service";

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
  /** Full-text search over the user's messages (docs/threads.md#search): each matching thread once, best first. */
  search: protectedProcedure
    .input(z.object({ q: z.string().trim().min(1).max(200), limit: z.number().int().min(1).max(50).default(20) }))
    .query(({ ctx, input }) => searchThreads({ userId: ctx.principal.userId, query: input.q, limit: input.limit })),
  rename: protectedProcedure
    .input(z.object({ id: z.string().uuid(), title: z.string().max(200) }))
    .mutation(({ ctx, input }) => renameThread({ userId: ctx.principal.userId, id: input.id, title: input.title })),
  /** Makes the branch through a message's sibling the thread's current one (docs/branches.md): the chat's ‹ 2/3 › switcher. */
  switchBranch: protectedProcedure
    .input(z.object({ id: z.string().uuid(), siblingId: z.string().uuid() }))
    .mutation(({ ctx, input }) => switchBranch({ userId: ctx.principal.userId, threadId: input.id, siblingId: input.siblingId })),
  delete: protectedProcedure
    .input(z.object({ id: z.string().uuid() }))
    .mutation(({ ctx, input }) => deleteThread({ userId: ctx.principal.userId, id: input.id })),
});
