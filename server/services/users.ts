import "server-only";
import { z } from "zod";
import { AppError } from "../errors";
import { emailSchema } from "../auth/credentials";
import { hashPassword } from "../auth/password";
import { countUsers, findUserByEmail, insertUser, listUsersPage, updateUserRole } from "../repositories/users";
import type { UserRole } from "../generated/prisma/enums";

export const passwordSchema = z
  .string()
  .min(8, "Password must be at least 8 characters")
  .max(200, "Password must be at most 200 characters");

export const createUserInput = z.object({
  email: emailSchema,
  password: passwordSchema,
  name: z.string().trim().max(100).optional(),
  role: z.enum(["user", "admin"]).default("user"),
});

export async function createUser(raw: z.input<typeof createUserInput>) {
  const input = createUserInput.parse(raw);
  if (await findUserByEmail({ email: input.email })) {
    throw new AppError("CONFLICT", `A user with email ${input.email} already exists`);
  }
  return insertUser({
    email: input.email,
    name: input.name ?? null,
    passwordHash: await hashPassword(input.password),
    role: input.role as UserRole,
  });
}

export async function hasAnyUser(): Promise<boolean> {
  return (await countUsers()) > 0;
}

/** One page of users for the admin console, newest first. */
export function listUsers(page: { cursor?: string; limit: number }) {
  return listUsersPage(page);
}

/** Changes a user's role. An admin cannot remove their own admin role, so the console always keeps the admin using it. */
export async function setUserRole({ actorId, id, role }: { actorId: string; id: string; role: UserRole }) {
  if (id === actorId && role !== "admin") throw new AppError("BAD_REQUEST", "You cannot remove your own admin role");
  return updateUserRole({ id, role });
}
