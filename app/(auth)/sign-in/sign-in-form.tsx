"use client";
import { useActionState } from "react";
import { signInAction, type SignInState } from "../actions";

export function SignInForm({ callbackUrl }: { callbackUrl: string }) {
  const [state, action, pending] = useActionState<SignInState, FormData>(signInAction, { error: null, email: "" });
  return (
    <form action={action} className="card" aria-labelledby="sign-in-title" noValidate>
      <h1 id="sign-in-title" style={{ marginTop: 0 }}>
        Sign in to Dispatch
      </h1>
      <input type="hidden" name="callbackUrl" value={callbackUrl} />
      <div className="field">
        <label htmlFor="email">Email</label>
        <input className="input" id="email" name="email" type="email" autoComplete="username" defaultValue={state.email} required />
      </div>
      <div className="field">
        <label htmlFor="password">Password</label>
        <input className="input" id="password" name="password" type="password" autoComplete="current-password" required />
      </div>
      {state.error ? (
        <p role="alert" className="error-text" data-testid="sign-in-error">
          {state.error}
        </p>
      ) : null}
      <button className="btn btn-primary" type="submit" disabled={pending}>
        {pending ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
