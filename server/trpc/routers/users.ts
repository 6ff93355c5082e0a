import "server-only";
import { z } from "zod";
import { adminProcedure, createTRPCRouter } from "../init";
import { createUser, createUserInput } from "../../services/users";
import { listUsersPage, updateUserRole } from "../../repositories/users";
import { AppError } from "../../errors";

export const usersRouter = createTRPCRouter({
  list: adminProcedure
    .input(z.object({ cursor: z.string().uuid().optional(), limit: z.number().int().min(1).max(100).default(25) }))
    .query(({ input }) => listUsersPage(input)),
  create: adminProcedure.input(createUserInput).mutation(({ input }) => createUser(input)),
  setRole: adminProcedure
    .input(z.object({ id: z.string().uuid(), role: z.enum(["user", "admin"]) }))
    .mutation(({ ctx, input }) => {
      if (input.id === ctx.principal.userId && input.role !== "admin") {
        throw new AppError("BAD_REQUEST", "You cannot remove your own admin role");
      }
      return updateUserRole(input);
    }),
});
