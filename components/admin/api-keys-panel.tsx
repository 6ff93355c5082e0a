"use client";
import { useState } from "react";
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { useDictionary } from "../i18n/use-dictionary";
import { useConsoleDates } from "./format";
import { CopyButton } from "../chat/copy-button";
import { ConfirmButton } from "./confirm-button";

// Long: one console panel: its list, its form and the state they share.
export function ApiKeysPanel() {
  const dates = useConsoleDates();
  const trpc = useTRPC();
  const c = useDictionary().console;
  const t = c.keys;
  const queryClient = useQueryClient();
  const keys = useInfiniteQuery(
    trpc.apiKeys.list.infiniteQueryOptions({ limit: 25 }, { getNextPageParam: (last) => last.nextCursor ?? undefined }),
  );
  const users = useQuery(trpc.users.list.queryOptions({ limit: 100 }));
  const [userId, setUserId] = useState("");
  const [name, setName] = useState("");
  const [autoApprove, setAutoApprove] = useState(false);
  const [newKey, setNewKey] = useState<string | null>(null);
  const invalidate = () => {
    void queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.users.list.pathKey() });
  };
  const create = useMutation(
    trpc.apiKeys.create.mutationOptions({
      onSuccess: (res) => {
        setNewKey(res.key);
        setName("");
        invalidate();
      },
    }),
  );
  const revoke = useMutation(trpc.apiKeys.revoke.mutationOptions({ onSuccess: invalidate }));
  const rows = keys.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <section className="card" aria-labelledby="keys-title">
      <h2 id="keys-title" style={{ marginTop: 0 }}>
        {t.title}
      </h2>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          if (userId) create.mutate({ userId, name: name || undefined, autoApprove });
        }}
      >
        <label className="sr-only" htmlFor="key-user">
          {t.owner}
        </label>
        <select id="key-user" className="input" style={{ maxWidth: 260 }} value={userId} onChange={(e) => setUserId(e.target.value)} required>
          <option value="">{t.chooseUser}</option>
          {users.data?.items.map((u) => (
            <option key={u.id} value={u.id}>
              {u.email}
            </option>
          ))}
        </select>
        <label className="sr-only" htmlFor="key-name">
          {t.name}
        </label>
        <input id="key-name" className="input" style={{ maxWidth: 200 }} placeholder={t.namePlaceholder} value={name} onChange={(e) => setName(e.target.value)} />
        <label title={t.autoApproveHelp}>
          <input type="checkbox" data-testid="key-auto-approve" checked={autoApprove} onChange={(e) => setAutoApprove(e.target.checked)} /> {t.autoApprove}
        </label>
        <button className="btn btn-primary" type="submit" disabled={!userId || create.isPending}>
          {t.create}
        </button>
      </form>
      {create.error ? <p className="error-text">{t.createFailed}</p> : null}
      {revoke.error ? <p className="error-text">{t.revokeFailed}</p> : null}
      {newKey ? (
        <p role="status" className="row">
          {t.newKey} <code data-testid="new-api-key">{newKey}</code>
          <CopyButton text={newKey} label={t.copyNew} testId="copy-api-key" />
        </p>
      ) : null}
      <div className="table-wrap" tabIndex={0}>
        <table className="data" data-testid="api-keys-table">
          <thead>
            <tr>
              <th>{t.key}</th>
              <th>{t.keyName}</th>
              <th>{t.keyOwner}</th>
              <th>{t.lastUsed}</th>
              <th>{t.status}</th>
              <th>
                <span className="sr-only">{c.actions}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((k) => (
              <tr key={k.id}>
                <td className="mono">{k.prefix}…</td>
                <td>{k.name}</td>
                <td>{k.user.email}</td>
                <td className="muted">{k.lastUsedAt ? dates.dateTime(k.lastUsedAt) : c.never}</td>
                <td>
                  {k.revokedAt ? <span className="pill pill-bad">{t.revoked}</span> : <span className="pill pill-ok">{t.active}</span>}
                  {k.autoApprove ? <span className="pill"> {t.approvesOwn}</span> : null}
                </td>
                <td>
                  {k.revokedAt ? null : (
                    <ConfirmButton
                      label={t.revoke}
                      question={t.revokeQuestion(k.prefix)}
                      confirmLabel={t.revokeConfirm}
                      danger
                      pending={revoke.isPending}
                      testId="revoke-key"
                      onConfirm={() => revoke.mutate({ id: k.id })}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {keys.hasNextPage ? (
        <button className="btn" type="button" onClick={() => void keys.fetchNextPage()}>
          {c.loadMore}
        </button>
      ) : null}
    </section>
  );
}
