"use client";
import { useState } from "react";
import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { formatDateTime } from "./format";
import { ConfirmButton } from "./confirm-button";

export function UsersPanel({ currentUserId }: { currentUserId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const users = useInfiniteQuery(
    trpc.users.list.infiniteQueryOptions({ limit: 25 }, { getNextPageParam: (last) => last.nextCursor ?? undefined }),
  );
  const [form, setForm] = useState({ email: "", password: "", admin: false });
  const create = useMutation(
    trpc.users.create.mutationOptions({
      onSuccess: () => {
        setForm({ email: "", password: "", admin: false });
        void queryClient.invalidateQueries({ queryKey: trpc.users.list.pathKey() });
      },
    }),
  );
  const setRole = useMutation(
    trpc.users.setRole.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.users.list.pathKey() }),
    }),
  );
  const rows = users.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <section className="card" aria-labelledby="users-title">
      <h2 id="users-title" style={{ marginTop: 0 }}>
        Users
      </h2>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ email: form.email, password: form.password, role: form.admin ? "admin" : "user" });
        }}
      >
        <label className="sr-only" htmlFor="new-user-email">
          New user email
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
          New user password
        </label>
        <input
          id="new-user-password"
          className="input"
          style={{ maxWidth: 200 }}
          type="password"
          placeholder="password (8+ chars)"
          value={form.password}
          onChange={(e) => setForm({ ...form, password: e.target.value })}
          required
          minLength={8}
        />
        <label className="row">
          <input type="checkbox" checked={form.admin} onChange={(e) => setForm({ ...form, admin: e.target.checked })} /> admin
        </label>
        <button className="btn btn-primary" type="submit" disabled={create.isPending}>
          Create user
        </button>
      </form>
      {create.error ? (
        <p role="alert" className="error-text">
          {create.error.message}
        </p>
      ) : null}
      {users.error ? <p className="error-text">{users.error.message}</p> : null}
      <div className="table-wrap" tabIndex={0}>
        <table className="data" data-testid="users-table">
          <thead>
            <tr>
              <th>Email</th>
              <th>Role</th>
              <th>Active API keys</th>
              <th>Created</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((u) => (
              <tr key={u.id}>
                <td>{u.email}</td>
                <td>{u.role}</td>
                <td>{u.activeApiKeys}</td>
                <td className="muted">{formatDateTime(new Date(u.createdAt))}</td>
                <td>
                  {u.id !== currentUserId ? (
                    <ConfirmButton
                      label={u.role === "admin" ? "Make user" : "Make admin"}
                      question={u.role === "admin" ? `Take admin rights from ${u.email}?` : `Give ${u.email} admin rights over every user and run?`}
                      pending={setRole.isPending}
                      testId="set-role"
                      onConfirm={() => setRole.mutate({ id: u.id, role: u.role === "admin" ? "user" : "admin" })}
                    />
                  ) : (
                    <span className="muted">you</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {users.hasNextPage ? (
        <button className="btn" type="button" onClick={() => void users.fetchNextPage()} disabled={users.isFetchingNextPage}>
          Load more
        </button>
      ) : null}
    </section>
  );
}
