import "server-only";
import { z } from "zod";
import { adminProcedure, createTRPCRouter } from "../init";
import { createUser, createUserInput, listUsers, setUserRole } from "../../services/users";

export const usersRouter = createTRPCRouter({
  list: adminProcedure
    .input(z.object({ cursor: z.string().uuid().optional(), limit: z.number().int().min(1).max(100).default(25) }))
    .query(({ input }) => listUsers(input)),
  create: adminProcedure.input(createUserInput).mutation(({ input }) => createUser(input)),
  setRole: adminProcedure
    .input(z.object({ id: z.string().uuid(), role: z.enum(["user", "admin"]) }))
    .mutation(({ ctx, input }) => setUserRole({ actorId: ctx.principal.userId, ...input })),
});
