"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { useDictionary, useRequestErrorText } from "../i18n/use-dictionary";
import { useConsoleDates } from "./format";
import styles from "./admin.module.css";

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(2)} MB`;
}

/** The knowledge base's documents with their chunk counts; delete one at a time. */
export function KnowledgeDocuments({ kbId, onChanged }: { kbId: string; onChanged: () => void }) {
  const errorText = useRequestErrorText();
  const dates = useConsoleDates();
  const c = useDictionary().console;
  const t = c.knowledge;
  const trpc = useTRPC();
  const documents = useQuery(trpc.knowledge.documents.queryOptions({ kbId }));
  const remove = useMutation(trpc.knowledge.deleteDocument.mutationOptions({ onSuccess: onChanged }));

  return (
    <section className="card" aria-labelledby="kb-docs-title">
      <h2 id="kb-docs-title" className={styles.sectionTitle}>
        {t.docsTitle}
      </h2>
      {documents.error ? <p className="error-text">{errorText(documents.error)}</p> : null}
      {remove.error ? (
        <p role="alert" className="error-text">
          {errorText(remove.error)}
        </p>
      ) : null}
      <div className="table-wrap" tabIndex={0}>
        <table className="data" data-testid="kb-documents">
          <thead>
            <tr>
              <th scope="col">{t.title}</th>
              <th scope="col">{t.type}</th>
              <th scope="col" className={styles.num}>
                {t.size}
              </th>
              <th scope="col" className={styles.num}>
                {t.chunks}
              </th>
              <th scope="col">{t.added}</th>
              <th scope="col">
                <span className="sr-only">{c.actions}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {documents.data?.map((d) => (
              <tr key={d.id} data-testid="kb-document-row" data-document-id={d.id}>
                <td className={styles.truncate} title={d.title}>
                  {d.title}
                </td>
                <td className="mono">{d.mimeType}</td>
                <td className={styles.num}>{formatBytes(d.size)}</td>
                <td className={styles.num} data-testid="kb-document-chunks">
                  {d.chunkCount}
                </td>
                <td className={styles.nowrap}>{dates.dateTime(d.createdAt)}</td>
                <td>
                  <button
                    className="btn btn-danger"
                    type="button"
                    disabled={remove.isPending && remove.variables?.id === d.id}
                    onClick={() => remove.mutate({ kbId, id: d.id })}
                    aria-label={t.deleteDocument(d.title)}
                  >
                    {t.delete}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {documents.data?.length === 0 ? (
        <p className="muted" data-testid="kb-documents-empty">
          {t.noDocuments}
        </p>
      ) : null}
    </section>
  );
}
