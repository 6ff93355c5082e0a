"use server";
import { AuthError, CredentialsSignin } from "next-auth";
import { signIn, signOut } from "@/server/auth/auth";
import { isDatabaseUnavailable } from "@/server/errors";

export type SignInState = { error: string | null; email: string };

function safeRedirect(target: FormDataEntryValue | null): string {
  const value = typeof target === "string" ? target : "";
  return value.startsWith("/") && !value.startsWith("//") ? value : "/";
}

export async function signInAction(_prev: SignInState, form: FormData): Promise<SignInState> {
  const email = String(form.get("email") ?? "").trim();
  const password = String(form.get("password") ?? "");
  if (!email || !password) return { error: "Enter your email and password.", email };
  try {
    await signIn("credentials", { email, password, redirectTo: safeRedirect(form.get("callbackUrl")) });
    return { error: null, email };
  } catch (err) {
    if (err instanceof AuthError) {
      if (isDatabaseUnavailable(err.cause?.err ?? err)) return { error: "The service is temporarily unavailable. Try again shortly.", email };
      const wait = err instanceof CredentialsSignin ? /^too_many_attempts:(\d+)$/.exec(err.code)?.[1] : undefined;
      if (wait) return { error: `Too many failed sign-in attempts. Wait ${wait} seconds, then try again.`, email };
      return { error: "Wrong email or password.", email };
    }
    throw err;
  }
}

export async function signOutAction(): Promise<void> {
  await signOut({ redirectTo: "/sign-in" });
}
