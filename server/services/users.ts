import "server-only";
import { z } from "zod";
import { AppError } from "../errors";
import { dummyPasswordHash, hashPassword, verifyPassword } from "../auth/password";
import { countUsers, findUserByEmail, insertUser } from "../repositories/users";
import type { UserRole } from "../generated/prisma/enums";

export const emailSchema = z.string().trim().toLowerCase().email("Enter a valid email address").max(254);
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

/** Returns the user when email and password match; null otherwise, in constant-ish time. */
export async function verifyCredentials({ email, password }: { email: string; password: string }) {
  const parsedEmail = emailSchema.safeParse(email);
  const user = parsedEmail.success ? await findUserByEmail({ email: parsedEmail.data }) : null;
  if (!user?.passwordHash) {
    await verifyPassword(password, await dummyPasswordHash());
    return null;
  }
  if (!(await verifyPassword(password, user.passwordHash))) return null;
  const { passwordHash: _omit, ...publicUser } = user;
  return publicUser;
}

export async function hasAnyUser(): Promise<boolean> {
  return (await countUsers()) > 0;
}
