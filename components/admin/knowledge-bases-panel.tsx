"use client";
import Link from "next/link";
import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { useDictionary, useRequestErrorText } from "../i18n/use-dictionary";
import { useConsoleDates } from "./format";
import styles from "./admin.module.css";

/** Knowledge bases: create, list with counts, delete (after a confirmation). */
// Long: one console panel: its list, its form and the state they share.
export function KnowledgeBasesPanel() {
  const errorText = useRequestErrorText();
  const dates = useConsoleDates();
  const c = useDictionary();
  const t = c.console.knowledge;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const bases = useQuery(trpc.knowledge.list.queryOptions());
  const [form, setForm] = useState({ name: "", description: "" });
  const [confirming, setConfirming] = useState<string | null>(null);
  const invalidate = () => void queryClient.invalidateQueries({ queryKey: trpc.knowledge.list.pathKey() });
  const create = useMutation(
    trpc.knowledge.create.mutationOptions({
      onSuccess: () => {
        setForm({ name: "", description: "" });
        invalidate();
      },
    }),
  );
  const remove = useMutation(
    trpc.knowledge.delete.mutationOptions({
      onSuccess: () => {
        setConfirming(null);
        invalidate();
      },
    }),
  );

  return (
    <section className="card" aria-labelledby="kb-list-title">
      <h2 id="kb-list-title" className={styles.sectionTitle}>
        {t.bases}
      </h2>
      <p className="muted">{t.basesHelp}</p>
      <form
        className="row"
        data-testid="kb-create-form"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate(form);
        }}
      >
        <label className="sr-only" htmlFor="kb-name">
          {t.name}
        </label>
        <input
          id="kb-name"
          className="input"
          style={{ maxWidth: 240 }}
          placeholder={t.namePlaceholder}
          value={form.name}
          maxLength={100}
          required
          onChange={(e) => setForm({ ...form, name: e.target.value })}
        />
        <label className="sr-only" htmlFor="kb-description">
          {t.description}
        </label>
        <input
          id="kb-description"
          className="input"
          style={{ maxWidth: 420 }}
          placeholder={t.descriptionPlaceholder}
          value={form.description}
          maxLength={1000}
          onChange={(e) => setForm({ ...form, description: e.target.value })}
        />
        <button className="btn btn-primary" type="submit" disabled={create.isPending || !form.name.trim()}>
          {create.isPending ? t.creating : t.create}
        </button>
      </form>
      {create.error ? (
        <p role="alert" className="error-text">
          {errorText(create.error)}
        </p>
      ) : null}
      {bases.error ? <p className="error-text">{errorText(bases.error)}</p> : null}
      {remove.error ? (
        <p role="alert" className="error-text">
          {errorText(remove.error)}
        </p>
      ) : null}
      <div className="table-wrap" tabIndex={0}>
        <table className="data" data-testid="kb-table">
          <thead>
            <tr>
              <th scope="col">{t.nameColumn}</th>
              <th scope="col">{t.description}</th>
              <th scope="col" className={styles.num}>
                {t.documents}
              </th>
              <th scope="col" className={styles.num}>
                {t.chunks}
              </th>
              <th scope="col">{t.created}</th>
              <th scope="col">
                <span className="sr-only">{c.console.actions}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {bases.data?.map((kb) => (
              <tr key={kb.id} data-testid="kb-row" data-kb-id={kb.id}>
                <td>
                  <Link href={`/admin/knowledge/${kb.id}`}>{kb.name}</Link>
                </td>
                <td className={styles.truncate} title={kb.description}>
                  {kb.description}
                </td>
                <td className={styles.num}>{kb.documentCount}</td>
                <td className={styles.num}>{kb.chunkCount}</td>
                <td className={styles.nowrap}>{dates.dateTime(kb.createdAt)}</td>
                <td className={styles.nowrap}>
                  {confirming === kb.id ? (
                    <span className="row">
                      <button className="btn btn-danger" type="button" disabled={remove.isPending} onClick={() => remove.mutate({ id: kb.id })}>
                        {t.deleteWith(kb.documentCount)}
                      </button>
                      <button className="btn" type="button" onClick={() => setConfirming(null)}>
                        {c.common.cancel}
                      </button>
                    </span>
                  ) : (
                    <button className="btn btn-danger" type="button" onClick={() => setConfirming(kb.id)}>
                      {t.delete}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {bases.data?.length === 0 ? (
        <p className="muted" data-testid="kb-empty">
          {t.none}
        </p>
      ) : null}
    </section>
  );
}
