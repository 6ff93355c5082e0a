import "server-only";
import { z } from "zod";
import { findUserByEmail } from "../accounts/repository/users";
import { dummyPasswordHash, verifyPassword } from "./password";

// Signing in with email and password (Auth.js's Credentials provider, auth.ts).

/** The sign-in error code for a deactivated account (the sign-in page says so). */
export const ACCOUNT_DEACTIVATED = "account_deactivated";

export const emailSchema = z.string().trim().toLowerCase().email("Enter a valid email address").max(254);

/**
 * Returns the user when email and password match; null otherwise, in constant-ish time. A
 * deactivated user is returned too (with `disabledAt`): the caller refuses them by name.
 */
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
