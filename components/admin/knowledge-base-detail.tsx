"use client";
import Link from "next/link";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { useDictionary, useRequestErrorText } from "../i18n/use-dictionary";
import { useConsoleDates } from "./format";
import { KnowledgeDocuments } from "./knowledge-documents";
import { KnowledgeSearch } from "./knowledge-search";
import { KnowledgeUpload } from "./knowledge-upload";
import styles from "./admin.module.css";

/** One knowledge base: its facts, document upload, documents, and a test search. */
export function KnowledgeBaseDetail({ id }: { id: string }) {
  const errorText = useRequestErrorText();
  const dates = useConsoleDates();
  const t = useDictionary().console.knowledge;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const kb = useQuery(trpc.knowledge.get.queryOptions({ id }));
  const documents = useQuery(trpc.knowledge.documents.queryOptions({ kbId: id }));
  // Counts, the document list and earlier search results all change with the documents.
  const refresh = () => void queryClient.invalidateQueries({ queryKey: trpc.knowledge.pathKey() });

  if (kb.error) {
    return (
      <>
        <h1 className={styles.title}>{t.base}</h1>
        <p role="alert" className="error-text">
          {errorText(kb.error)}
        </p>
        <Link href="/admin/knowledge">{t.allBases}</Link>
      </>
    );
  }
  return (
    <>
      <p className="muted" style={{ margin: 0 }}>
        <Link href="/admin/knowledge">{t.bases}</Link> ›
      </p>
      <h1 className={styles.title} data-testid="kb-title">
        {kb.data?.name ?? "…"}
      </h1>
      {kb.data ? (
        <section className="card">
          <dl className={styles.facts}>
            <div>
              <dt>{t.id}</dt>
              <dd className="mono">{kb.data.id}</dd>
            </div>
            <div>
              <dt>{t.description}</dt>
              <dd>{kb.data.description || "—"}</dd>
            </div>
            <div>
              <dt>{t.documents}</dt>
              <dd data-testid="kb-document-count">{kb.data.documentCount}</dd>
            </div>
            <div>
              <dt>{t.chunks}</dt>
              <dd data-testid="kb-chunk-count">{kb.data.chunkCount}</dd>
            </div>
            <div>
              <dt>{t.created}</dt>
              <dd>{dates.dateTime(kb.data.createdAt)}</dd>
            </div>
          </dl>
        </section>
      ) : null}
      <KnowledgeUpload kbId={id} onUploaded={refresh} />
      <KnowledgeDocuments kbId={id} onChanged={refresh} />
      <KnowledgeSearch kbId={id} documents={documents.data ?? []} />
    </>
  );
}
