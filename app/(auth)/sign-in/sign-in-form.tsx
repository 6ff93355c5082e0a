"use client";
import { useActionState } from "react";
import { useDictionary } from "@/components/i18n/use-dictionary";
import type { Dictionary } from "@/components/i18n/dictionaries";
import { signInAction, type SignInProblem, type SignInState } from "../actions";

function problemText(problem: SignInProblem, t: Dictionary["auth"]): string {
  if (typeof problem === "object") return t.tooMany(problem.tooManySeconds);
  return t[problem];
}

export function SignInForm({ callbackUrl }: { callbackUrl: string }) {
  const t = useDictionary().auth;
  const [state, action, pending] = useActionState<SignInState, FormData>(signInAction, { error: null, email: "" });
  return (
    <form action={action} className="card" aria-labelledby="sign-in-title" noValidate>
      <h1 id="sign-in-title" style={{ marginTop: 0 }}>
        {t.signInTitle}
      </h1>
      <input type="hidden" name="callbackUrl" value={callbackUrl} />
      <div className="field">
        <label htmlFor="email">{t.email}</label>
        <input className="input" id="email" name="email" type="email" autoComplete="username" defaultValue={state.email} required />
      </div>
      <div className="field">
        <label htmlFor="password">{t.password}</label>
        <input className="input" id="password" name="password" type="password" autoComplete="current-password" required />
      </div>
      {state.error ? (
        <p role="alert" className="error-text" data-testid="sign-in-error">
          {problemText(state.error, t)}
        </p>
      ) : null}
      <button className="btn btn-primary" type="submit" disabled={pending}>
        {pending ? t.signingIn : t.signIn}
      </button>
    </form>
  );
}
