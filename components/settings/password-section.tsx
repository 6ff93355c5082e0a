"use client";

import { useActionState, useId } from "react";
import { changePasswordAction, type ChangePasswordState } from "@/app/(auth)/actions";
import { useI18n } from "@/components/i18n/use-dictionary";
import { formatNumber } from "@/components/i18n/format";

// The chat settings' password section: the signed-in user changes their own password. The server
// action checks the current one (with the sign-in's back-off), ends the user's other sessions and
// signs this browser in again; each refusal comes back as a code said here in the user's language.

/** `changed`: the page was reached right after a change (the action signs in again and comes back). */
export function PasswordSection({ min, max, changed }: { min: number; max: number; changed: boolean }) {
  const { t, locale } = useI18n();
  const w = t.settings.password;
  const name = useId();
  const [state, action, pending] = useActionState<ChangePasswordState, FormData>(changePasswordAction, { problem: null });
  const problem = state.problem;
  const message =
    problem === null
      ? null
      : typeof problem === "object"
        ? w.tooMany(formatNumber(problem.tooManySeconds, locale))
        : problem === "wrong_current"
          ? w.wrongCurrent
          : problem === "too_short"
            ? t.auth.tooShort(min)
            : problem === "too_long"
              ? t.auth.tooLongPassword(max)
              : problem === "mismatch"
                ? t.auth.mismatch
                : w.sameAsCurrent;

  return (
    <section aria-labelledby={`${name}-title`} data-testid="password-section">
      <h2 id={`${name}-title`}>{w.title}</h2>
      <form action={action} noValidate>
        <div className="field">
          <label htmlFor={`${name}-current`}>{w.current}</label>
          <input className="input" id={`${name}-current`} name="current" type="password" autoComplete="current-password" required data-testid="password-current" />
        </div>
        <div className="field">
          <label htmlFor={`${name}-new`}>{t.auth.newPassword}</label>
          <input className="input" id={`${name}-new`} name="password" type="password" autoComplete="new-password" aria-describedby={`${name}-hint`} required data-testid="password-new" />
          <small id={`${name}-hint`} className="muted">
            {t.auth.passwordHint(min)}
          </small>
        </div>
        <div className="field">
          <label htmlFor={`${name}-confirm`}>{t.auth.confirmPassword}</label>
          <input className="input" id={`${name}-confirm`} name="confirm" type="password" autoComplete="new-password" required data-testid="password-confirm" />
        </div>
        {message ? (
          <p role="alert" className="error-text" data-testid="password-error">
            {message}
          </p>
        ) : null}
        {changed && problem === null ? (
          <p role="status" className="muted" data-testid="password-changed">
            {w.changed}
          </p>
        ) : null}
        <button className="btn btn-primary" type="submit" disabled={pending} data-testid="password-save">
          {pending ? w.saving : w.save}
        </button>
      </form>
    </section>
  );
}
