"use client";
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { useDictionary, useRequestErrorText } from "../i18n/use-dictionary";
import styles from "./admin.module.css";

type Documents = { id: string; title: string }[];
type Search = { query: string; topK: number; documentId: string };

/** Runs the same retrieval a runner gets, and shows the ranked chunks. */
// Long: one search: its form and its ranked results share one query state.
export function KnowledgeSearch({ kbId, documents }: { kbId: string; documents: Documents }) {
  const errorText = useRequestErrorText();
  const trpc = useTRPC();
  const t = useDictionary().console.knowledge;
  const [form, setForm] = useState<Search>({ query: "", topK: 5, documentId: "" });
  const [submitted, setSubmitted] = useState<Search | null>(null);
  const search = useQuery({
    ...trpc.knowledge.search.queryOptions({
      kbId,
      query: submitted?.query ?? "",
      topK: submitted?.topK ?? 5,
      filters: submitted?.documentId ? { document_ids: [submitted.documentId] } : undefined,
    }),
    enabled: submitted !== null,
    staleTime: 0,
    retry: false,
  });
  const entries = search.data?.entries;

  return (
    <section className="card" aria-labelledby="kb-search-title">
      <h2 id="kb-search-title" className={styles.sectionTitle}>
        {t.testSearch}
      </h2>
      <form
        className="row"
        data-testid="kb-search-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (form.query.trim()) setSubmitted({ ...form, query: form.query.trim() });
        }}
      >
        <label className="sr-only" htmlFor="kb-query">
          {t.query}
        </label>
        <input
          id="kb-query"
          className="input"
          style={{ maxWidth: 420 }}
          placeholder={t.queryPlaceholder}
          value={form.query}
          maxLength={2000}
          onChange={(e) => setForm({ ...form, query: e.target.value })}
        />
        <label className="row">
          {t.top}
          <input
            className="input"
            style={{ width: 72 }}
            type="number"
            min={1}
            max={50}
            value={form.topK}
            aria-label={t.resultCount}
            onChange={(e) => setForm({ ...form, topK: Math.min(50, Math.max(1, Number(e.target.value) || 1)) })}
          />
        </label>
        <label className="sr-only" htmlFor="kb-search-document">
          {t.onlyDocument}
        </label>
        <select id="kb-search-document" className="input" style={{ maxWidth: 260 }} value={form.documentId} onChange={(e) => setForm({ ...form, documentId: e.target.value })}>
          <option value="">{t.allDocuments}</option>
          {documents.map((d) => (
            <option key={d.id} value={d.id}>
              {d.title}
            </option>
          ))}
        </select>
        <button className="btn btn-primary" type="submit" disabled={!form.query.trim() || search.isFetching}>
          {search.isFetching ? t.searching : t.search}
        </button>
      </form>
      {search.error ? (
        <p role="alert" className="error-text">
          {errorText(search.error)}
        </p>
      ) : null}
      {entries && entries.length === 0 ? (
        <p className="muted" data-testid="kb-search-empty">
          {t.noMatch(submitted?.query ?? "")}
        </p>
      ) : null}
      {entries && entries.length > 0 ? (
        <ol className="stack" style={{ paddingLeft: 20 }} data-testid="kb-search-results">
          {entries.map((e) => (
            <li key={e.id} data-testid="kb-search-result" data-document-id={e.document_id}>
              <div className={styles.messageHead}>
                <strong>{e.document_title}</strong>
                {e.metadata.headings.length > 0 ? <span className="muted">{e.metadata.headings.join(" › ")}</span> : null}
                <span className="pill" title={t.score}>
                  {e.score.toFixed(4)}
                </span>
                <span className={`pill ${styles.pillInfo}`} title={t.matchHelp}>
                  {e.metadata.match}
                </span>
                <span className="muted">{t.chunk(e.metadata.ord + 1)}</span>
              </div>
              <pre className={styles.json} data-testid="kb-search-content">
                {e.content}
              </pre>
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}
