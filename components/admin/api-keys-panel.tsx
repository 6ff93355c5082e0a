"use client";
import { useState } from "react";
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";

export function ApiKeysPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const keys = useInfiniteQuery(
    trpc.apiKeys.list.infiniteQueryOptions({ limit: 25 }, { getNextPageParam: (last) => last.nextCursor ?? undefined }),
  );
  const users = useQuery(trpc.users.list.queryOptions({ limit: 100 }));
  const [userId, setUserId] = useState("");
  const [name, setName] = useState("");
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
        API keys
      </h2>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          if (userId) create.mutate({ userId, name: name || undefined });
        }}
      >
        <label className="sr-only" htmlFor="key-user">
          Key owner
        </label>
        <select id="key-user" className="input" style={{ maxWidth: 260 }} value={userId} onChange={(e) => setUserId(e.target.value)} required>
          <option value="">Choose a user…</option>
          {users.data?.items.map((u) => (
            <option key={u.id} value={u.id}>
              {u.email}
            </option>
          ))}
        </select>
        <label className="sr-only" htmlFor="key-name">
          Key name
        </label>
        <input id="key-name" className="input" style={{ maxWidth: 200 }} placeholder="name (optional)" value={name} onChange={(e) => setName(e.target.value)} />
        <button className="btn btn-primary" type="submit" disabled={!userId || create.isPending}>
          Create key
        </button>
      </form>
      {create.error ? <p className="error-text">{create.error.message}</p> : null}
      {newKey ? (
        <p role="status">
          New key (shown once): <code data-testid="new-api-key">{newKey}</code>
        </p>
      ) : null}
      <div className="table-wrap">
        <table className="data" data-testid="api-keys-table">
          <thead>
            <tr>
              <th>Key</th>
              <th>Name</th>
              <th>Owner</th>
              <th>Last used</th>
              <th>Status</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rows.map((k) => (
              <tr key={k.id}>
                <td className="mono">{k.prefix}…</td>
                <td>{k.name}</td>
                <td>{k.user.email}</td>
                <td className="muted">{k.lastUsedAt ? new Date(k.lastUsedAt).toLocaleString() : "never"}</td>
                <td>{k.revokedAt ? <span className="pill pill-bad">revoked</span> : <span className="pill pill-ok">active</span>}</td>
                <td>
                  {k.revokedAt ? null : (
                    <button className="btn btn-danger" type="button" onClick={() => revoke.mutate({ id: k.id })}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {keys.hasNextPage ? (
        <button className="btn" type="button" onClick={() => void keys.fetchNextPage()}>
          Load more
        </button>
      ) : null}
    </section>
  );
}
