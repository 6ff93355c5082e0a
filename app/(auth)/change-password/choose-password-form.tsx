"use client";
import { useActionState } from "react";
import { useDictionary } from "@/components/i18n/use-dictionary";
import { choosePasswordAction, signOutAction, type ChoosePasswordState } from "../actions";

export function ChoosePasswordForm({ email, min, max }: { email: string; min: number; max: number }) {
  const t = useDictionary().auth;
  const [state, action, pending] = useActionState<ChoosePasswordState, FormData>(choosePasswordAction, { problem: null });
  const problem =
    state.problem === "too_short"
      ? t.tooShort(min)
      : state.problem === "too_long"
        ? t.tooLongPassword(max)
        : state.problem === "mismatch"
          ? t.mismatch
          : state.problem === "same_as_one_time"
            ? t.sameAsOneTime
            : null;
  return (
    <div className="card">
      <form action={action} aria-labelledby="choose-password-title" aria-describedby="choose-password-text" noValidate>
        <h1 id="choose-password-title" style={{ marginTop: 0 }}>
          {t.chooseTitle}
        </h1>
        <p id="choose-password-text" className="muted">
          {t.chooseText}
        </p>
        {/* For password managers: which account this new password belongs to. */}
        <input type="email" name="username" autoComplete="username" value={email} readOnly hidden />
        <div className="field">
          <label htmlFor="new-password">{t.newPassword}</label>
          <input className="input" id="new-password" name="password" type="password" autoComplete="new-password" aria-describedby="new-password-hint" required />
          <small id="new-password-hint" className="muted">
            {t.passwordHint(min)}
          </small>
        </div>
        <div className="field">
          <label htmlFor="confirm-password">{t.confirmPassword}</label>
          <input className="input" id="confirm-password" name="confirm" type="password" autoComplete="new-password" required />
        </div>
        {problem ? (
          <p role="alert" className="error-text" data-testid="choose-password-error">
            {problem}
          </p>
        ) : null}
        <button className="btn btn-primary" type="submit" disabled={pending}>
          {pending ? t.savingPassword : t.savePassword}
        </button>
      </form>
      <form action={signOutAction} style={{ marginTop: 12 }}>
        <button className="btn" type="submit">
          {t.signOut}
        </button>
      </form>
    </div>
  );
}
