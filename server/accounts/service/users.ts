import "server-only";
import { z } from "zod";
import { AppError } from "../../kernel/errors";
import { emailSchema } from "../../auth/credentials";
import { generateOneTimePassword, hashPassword, verifyPassword } from "../../auth/password";
import { countUsers, findUserByEmail, findUserWithPasswordById, insertUser, listUsersPage, updateUserDisabled, updateUserPassword, updateUserRole } from "../repository/users";
import type { UserRole } from "../../generated/prisma/enums";
import { passwordChangeWait, recordPasswordChange, recordPasswordReset } from "../../limits/attempts";
import { logger } from "../../logger";

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 200;

export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `Password must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `Password must be at most ${PASSWORD_MAX_LENGTH} characters`);

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

/**
 * Deactivates a user (they cannot sign in; their sessions and API keys stop working at their next
 * request; their threads and runs stay) or reactivates them, which restores all of it.
 */
export async function setUserActive({ actorId, id, active }: { actorId: string | null; id: string; active: boolean }) {
  if (!active && id === actorId) throw new AppError("BAD_REQUEST", "You cannot deactivate your own account");
  const user = await updateUserDisabled({ id, disabled: !active });
  if (user === "last_admin") throw new AppError("CONFLICT", "This is the last active admin: make another user an admin before deactivating this one");
  if (!user) throw new AppError("NOT_FOUND", "User not found");
  return user;
}

/**
 * Replaces a user's password with a generated one-time password, returned once and never stored
 * in the clear. The user must choose their own at their next sign-in; every session they had ends.
 */
export async function resetUserPassword({ actorId, id }: { actorId: string | null; id: string }) {
  if (id === actorId) throw new AppError("BAD_REQUEST", "You cannot reset your own password here: ask another admin, or run `npm run admin -- user:reset-password`");
  const oneTimePassword = generateOneTimePassword();
  const user = await updateUserPassword({ id, passwordHash: await hashPassword(oneTimePassword), mustChange: true });
  if (!user) throw new AppError("NOT_FOUND", "User not found");
  await recordPasswordReset({ email: user.email });
  logger.info({ userId: user.id, actorId }, "password reset to a one-time password");
  return { user: { id: user.id, email: user.email }, oneTimePassword };
}

async function userIdByEmail(email: string): Promise<string> {
  const parsed = emailSchema.safeParse(email);
  const user = parsed.success ? await findUserByEmail({ email: parsed.data }) : null;
  if (!user) throw new AppError("NOT_FOUND", `No user with email ${email}`);
  return user.id;
}

/** `npm run admin -- user:deactivate` / `user:reactivate`: the console's rules (never the last active admin), found by email. */
export async function setUserActiveByEmail({ email, active }: { email: string; active: boolean }) {
  return setUserActive({ actorId: null, id: await userIdByEmail(email), active });
}

/** `npm run admin -- user:reset-password`: the same reset, found by email. */
export async function resetUserPasswordByEmail({ email }: { email: string }) {
  return resetUserPassword({ actorId: null, id: await userIdByEmail(email) });
}

/** Why a new password was not taken: the page says it in the user's language. */
export type NewPasswordProblem = "too_short" | "too_long" | "mismatch" | "same_as_one_time";

/**
 * The signed-in user replaces the one-time password an admin gave them. The new one must differ
 * from it, so the one-time password stops working. Every session signed in before ends, this
 * one included: the caller signs in again with the new password.
 */
export async function chooseOwnPassword({ userId, password, confirm }: { userId: string; password: string; confirm: string }): Promise<{ ok: true; email: string } | { ok: false; problem: NewPasswordProblem }> {
  if (password.length < PASSWORD_MIN_LENGTH) return { ok: false, problem: "too_short" };
  if (password.length > PASSWORD_MAX_LENGTH) return { ok: false, problem: "too_long" };
  if (password !== confirm) return { ok: false, problem: "mismatch" };
  const current = await findUserWithPasswordById({ id: userId });
  if (!current || current.disabledAt || !current.mustChangePassword) throw new AppError("UNAUTHORIZED", "Sign in again to choose a new password");
  if (current.passwordHash && (await verifyPassword(password, current.passwordHash))) return { ok: false, problem: "same_as_one_time" };
  await updateUserPassword({ id: userId, passwordHash: await hashPassword(password), mustChange: false });
  return { ok: true, email: current.email };
}

/** Why a signed-in user's password change was refused: the settings page says it in their language. */
export type PasswordChangeProblem = "wrong_current" | "too_short" | "too_long" | "mismatch" | "same_as_current" | { tooManySeconds: number };

/**
 * A signed-in user changes their own password (the chat's settings): the current one must be
 * right, with the sign-in's back-off against guessing and every check audited
 * (`auth_attempts`). Every session of the user ends, this one included: the caller signs in again.
 */
export async function changeOwnPassword(opts: { userId: string; current: string; password: string; confirm: string; address: string | null }): Promise<{ ok: true; email: string } | { ok: false; problem: PasswordChangeProblem }> {
  const { password } = opts;
  if (password.length < PASSWORD_MIN_LENGTH) return { ok: false, problem: "too_short" };
  if (password.length > PASSWORD_MAX_LENGTH) return { ok: false, problem: "too_long" };
  if (password !== opts.confirm) return { ok: false, problem: "mismatch" };
  const user = await findUserWithPasswordById({ id: opts.userId });
  if (!user || user.disabledAt || user.mustChangePassword) throw new AppError("UNAUTHORIZED", "Sign in again to change your password");
  const seconds = await passwordChangeWait({ email: user.email, address: opts.address });
  if (seconds > 0) return { ok: false, problem: { tooManySeconds: seconds } };
  const right = user.passwordHash !== null && opts.current.length <= PASSWORD_MAX_LENGTH && (await verifyPassword(opts.current, user.passwordHash));
  await recordPasswordChange({ email: user.email, address: opts.address, succeeded: right });
  if (!right) return { ok: false, problem: "wrong_current" };
  if (password === opts.current) return { ok: false, problem: "same_as_current" };
  await updateUserPassword({ id: user.id, passwordHash: await hashPassword(password), mustChange: false });
  logger.info({ userId: user.id }, "password changed by its owner");
  return { ok: true, email: user.email };
}

/** The user with this email (any case), or null: for services that name users by email (grants, webhooks). */
export async function userWithEmail(email: string) {
  return findUserByEmail({ email: email.toLowerCase() });
}
