"use server";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { AuthError, CredentialsSignin } from "next-auth";
import { signIn, signOut } from "@/server/auth/auth";
import { ACCOUNT_DEACTIVATED } from "@/server/auth/credentials";
import { getSignedInUser } from "@/server/auth/session";
import { isDatabaseUnavailable } from "@/server/kernel/errors";
import { clientAddress } from "@/server/limits/attempts";
import { changeOwnPassword, chooseOwnPassword, type NewPasswordProblem, type PasswordChangeProblem } from "@/server/accounts/service/users";

// Errors travel as codes: the forms say them in the user's language (components/i18n).
export type SignInProblem = "missing" | "wrong" | "deactivated" | "unavailable" | { tooManySeconds: string };
export type SignInState = { error: SignInProblem | null; email: string };

function safeRedirect(target: FormDataEntryValue | null): string {
  const value = typeof target === "string" ? target : "";
  return value.startsWith("/") && !value.startsWith("//") ? value : "/";
}

export async function signInAction(_prev: SignInState, form: FormData): Promise<SignInState> {
  const email = String(form.get("email") ?? "").trim();
  const password = String(form.get("password") ?? "");
  if (!email || !password) return { error: "missing", email };
  try {
    await signIn("credentials", { email, password, redirectTo: safeRedirect(form.get("callbackUrl")) });
    return { error: null, email };
  } catch (err) {
    if (err instanceof AuthError) {
      if (isDatabaseUnavailable(err.cause?.err ?? err)) return { error: "unavailable", email };
      const code = err instanceof CredentialsSignin ? err.code : "";
      const wait = /^too_many_attempts:(\d+)$/.exec(code)?.[1];
      if (wait) return { error: { tooManySeconds: wait }, email };
      if (code === ACCOUNT_DEACTIVATED) return { error: "deactivated", email };
      return { error: "wrong", email };
    }
    throw err;
  }
}

export async function signOutAction(): Promise<void> {
  await signOut({ redirectTo: "/sign-in" });
}

export type ChoosePasswordState = { problem: NewPasswordProblem | null };

/** The forced change after a one-time password: on success the user is signed in again with the new one. */
export async function choosePasswordAction(_prev: ChoosePasswordState, form: FormData): Promise<ChoosePasswordState> {
  const user = await getSignedInUser();
  if (!user) redirect("/sign-in");
  if (!user.mustChangePassword) redirect("/");
  const password = String(form.get("password") ?? "");
  const result = await chooseOwnPassword({ userId: user.principal.userId, password, confirm: String(form.get("confirm") ?? "") });
  if (!result.ok) return { problem: result.problem };
  // The change voided every session, this one too: a fresh one under the new password.
  await signIn("credentials", { email: result.email, password, redirectTo: "/" });
  return { problem: null };
}

export type ChangePasswordState = { problem: PasswordChangeProblem | null };

const SETTINGS_PATH = "/chat/settings";

/**
 * The chat settings' password change: on success this browser is signed in again with the new
 * password (the change voided this session too) and sent back to the settings, which say it is
 * done; the user's other sessions are signed out.
 */
export async function changePasswordAction(_prev: ChangePasswordState, form: FormData): Promise<ChangePasswordState> {
  const user = await getSignedInUser();
  if (!user || user.mustChangePassword) redirect("/sign-in");
  const password = String(form.get("password") ?? "");
  const result = await changeOwnPassword({
    userId: user.principal.userId,
    current: String(form.get("current") ?? ""),
    password,
    confirm: String(form.get("confirm") ?? ""),
    address: clientAddress(await headers()),
  });
  if (!result.ok) return { problem: result.problem };
  await signIn("credentials", { email: result.email, password, redirectTo: `${SETTINGS_PATH}?password=changed` });
  return { problem: null };
}
