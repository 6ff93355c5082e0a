"use client";
import { useState } from "react";
import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { useDictionary, useRequestErrorText } from "../i18n/use-dictionary";
import { CopyButton } from "../chat/copy-button";
import { useConsoleDates } from "./format";
import { ConfirmButton } from "./confirm-button";

// The browser's hint only: the server's passwordSchema (server/accounts/service/users.ts) is the rule.
const PASSWORD_MIN_LENGTH = 8;

// Long: one console panel: its list, its form and the state they share.
export function UsersPanel({ currentUserId }: { currentUserId: string }) {
  const errorText = useRequestErrorText();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const c = useDictionary().console;
  const t = c.users;
  const dates = useConsoleDates();
  const users = useInfiniteQuery(
    trpc.users.list.infiniteQueryOptions({ limit: 25 }, { getNextPageParam: (last) => last.nextCursor ?? undefined }),
  );
  const [form, setForm] = useState({ email: "", password: "", admin: false });
  const [oneTime, setOneTime] = useState<{ email: string; password: string } | null>(null);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: trpc.users.list.pathKey() });
  const create = useMutation(
    trpc.users.create.mutationOptions({
      onSuccess: () => {
        setForm({ email: "", password: "", admin: false });
        refresh();
      },
    }),
  );
  const setRole = useMutation(trpc.users.setRole.mutationOptions({ onSuccess: refresh }));
  const setActive = useMutation(trpc.users.setActive.mutationOptions({ onSuccess: refresh }));
  const resetPassword = useMutation(
    trpc.users.resetPassword.mutationOptions({
      onSuccess: (res) => {
        setOneTime({ email: res.user.email, password: res.oneTimePassword });
        refresh();
      },
    }),
  );
  const actionError = setRole.error ?? setActive.error ?? resetPassword.error;
  const rows = users.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <section className="card" aria-labelledby="users-title">
      <h2 id="users-title" style={{ marginTop: 0 }}>
        {t.title}
      </h2>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ email: form.email, password: form.password, role: form.admin ? "admin" : "user" });
        }}
      >
        <label className="sr-only" htmlFor="new-user-email">
          {t.newEmail}
        </label>
        <input
          id="new-user-email"
          className="input"
          style={{ maxWidth: 260 }}
          type="email"
          placeholder="email@example.com"
          value={form.email}
          onChange={(e) => setForm({ ...form, email: e.target.value })}
          required
        />
        <label className="sr-only" htmlFor="new-user-password">
          {t.newPassword}
        </label>
        <input
          id="new-user-password"
          className="input"
          style={{ maxWidth: 200 }}
          type="password"
          placeholder={t.passwordPlaceholder(PASSWORD_MIN_LENGTH)}
          value={form.password}
          onChange={(e) => setForm({ ...form, password: e.target.value })}
          required
          minLength={PASSWORD_MIN_LENGTH}
        />
        <label className="row">
          <input type="checkbox" checked={form.admin} onChange={(e) => setForm({ ...form, admin: e.target.checked })} /> {t.admin}
        </label>
        <button className="btn btn-primary" type="submit" disabled={create.isPending}>
          {t.create}
        </button>
      </form>
      {create.error ? (
        <p role="alert" className="error-text">
          {errorText(create.error)}
        </p>
      ) : null}
      {actionError ? (
        <p role="alert" className="error-text" data-testid="users-error">
          {t.failed(actionError.message)}
        </p>
      ) : null}
      {oneTime ? (
        <p role="status" className="row" data-testid="one-time-password-notice">
          {t.oneTimeFor(oneTime.email)} <code data-testid="one-time-password">{oneTime.password}</code>
          <CopyButton text={oneTime.password} label={t.copyOneTime} testId="copy-one-time-password" />
          <button className="btn" type="button" onClick={() => setOneTime(null)}>
            {t.dismiss}
          </button>
        </p>
      ) : null}
      {users.error ? <p className="error-text">{errorText(users.error)}</p> : null}
      <div className="table-wrap" tabIndex={0}>
        <table className="data" data-testid="users-table">
          <thead>
            <tr>
              <th>{t.email}</th>
              <th>{t.role}</th>
              <th>{t.status}</th>
              <th>{t.activeKeys}</th>
              <th>{t.created}</th>
              <th>
                <span className="sr-only">{c.actions}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((u) => (
              <tr key={u.id} data-testid="user-row" data-email={u.email}>
                <td>{u.email}</td>
                <td>{t.roles[u.role] ?? u.role}</td>
                <td data-testid="user-status">
                  {u.disabledAt ? <span className="pill pill-bad">{t.deactivated}</span> : <span className="pill pill-ok">{t.active}</span>}
                  {u.mustChangePassword && !u.disabledAt ? <span className="pill"> {t.mustChange}</span> : null}
                </td>
                <td>{u.activeApiKeys}</td>
                <td className="muted">{dates.dateTime(u.createdAt)}</td>
                <td>
                  {u.id !== currentUserId ? (
                    <span className="row">
                      <ConfirmButton
                        label={u.role === "admin" ? t.makeUser : t.makeAdmin}
                        question={u.role === "admin" ? t.takeAdmin(u.email) : t.giveAdmin(u.email)}
                        pending={setRole.isPending}
                        testId="set-role"
                        onConfirm={() => setRole.mutate({ id: u.id, role: u.role === "admin" ? "user" : "admin" })}
                      />
                      <ConfirmButton
                        label={u.disabledAt ? t.reactivate : t.deactivate}
                        question={u.disabledAt ? t.reactivateQuestion(u.email) : t.deactivateQuestion(u.email)}
                        danger={!u.disabledAt}
                        pending={setActive.isPending}
                        testId={u.disabledAt ? "reactivate-user" : "deactivate-user"}
                        onConfirm={() => setActive.mutate({ id: u.id, active: !!u.disabledAt })}
                      />
                      <ConfirmButton
                        label={t.resetPassword}
                        question={t.resetQuestion(u.email)}
                        danger
                        pending={resetPassword.isPending}
                        testId="reset-password"
                        onConfirm={() => resetPassword.mutate({ id: u.id })}
                      />
                    </span>
                  ) : (
                    <span className="muted">{t.you}</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {users.hasNextPage ? (
        <button className="btn" type="button" onClick={() => void users.fetchNextPage()} disabled={users.isFetchingNextPage}>
          {c.loadMore}
        </button>
      ) : null}
    </section>
  );
}
