import "server-only";
import { z } from "zod";
import { adminProcedure, createTRPCRouter } from "../init";
import { createUser, createUserInput, listUsers, resetUserPassword, setUserActive, setUserRole } from "../../accounts/service/users";

export const usersRouter = createTRPCRouter({
  list: adminProcedure
    .input(z.object({ cursor: z.string().uuid().optional(), limit: z.number().int().min(1).max(100).default(25) }))
    .query(({ input }) => listUsers(input)),
  create: adminProcedure.input(createUserInput).mutation(({ input }) => createUser(input)),
  setRole: adminProcedure
    .input(z.object({ id: z.string().uuid(), role: z.enum(["user", "admin"]) }))
    .mutation(({ ctx, input }) => setUserRole({ actorId: ctx.principal.userId, ...input })),
  setActive: adminProcedure
    .input(z.object({ id: z.string().uuid(), active: z.boolean() }))
    .mutation(({ ctx, input }) => setUserActive({ actorId: ctx.principal.userId, ...input })),
  // The one-time password is in this answer only: shown once, never stored in the clear.
  resetPassword: adminProcedure
    .input(z.object({ id: z.string().uuid() }))
    .mutation(({ ctx, input }) => resetUserPassword({ actorId: ctx.principal.userId, id: input.id })),
});
