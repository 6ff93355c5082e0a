"use client";
import Link from "next/link";
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { UiSchemaView } from "../ui-schema/ui-schema-view";
import { useTRPC } from "../trpc-provider";
import { useConsoleDates, formatDuration, statusPillClass, type AdminOutputs } from "./format";
import { JsonBlock } from "./json-block";
import { useDictionary, useRequestErrorText } from "../i18n/use-dictionary";
import styles from "./admin.module.css";

type ThreadDetail = AdminOutputs["adminThreads"]["get"];

function ThreadRuns({ detail }: { detail: ThreadDetail }) {
  const dates = useConsoleDates();
  const c = useDictionary().console;
  const t = c.thread;
  const { thread, runs } = detail;
  return (
    <section className="card" aria-labelledby="thread-runs-title">
      <h2 id="thread-runs-title" className={styles.sectionTitle}>
        {t.runs}
      </h2>
      <div className="table-wrap" tabIndex={0}>
        <table className="data" data-testid="thread-runs">
          <caption className={styles.caption}>
            {runs.length < thread.runCount ? t.newestOf(runs.length, thread.runCount) : t.runCount(thread.runCount)}
          </caption>
          <thead>
            <tr>
              <th scope="col">{c.runs.created}</th>
              <th scope="col">{c.runs.run}</th>
              <th scope="col">{c.runs.status}</th>
              <th scope="col">{c.run.runner}</th>
              <th scope="col" className={styles.num}>
                {c.runs.duration}
              </th>
              <th scope="col">{c.runs.error}</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr key={r.id}>
                <td className={styles.nowrap}>{dates.dateTime(r.createdAt)}</td>
                <td className={`mono ${styles.truncate}`}>
                  <Link href={`/admin/runs/${r.id}`}>{r.runId}</Link>
                </td>
                <td>
                  <span className={statusPillClass(r.status)}>{c.status[r.status] ?? r.status}</span>
                </td>
                <td className={`mono ${styles.truncate}`}>{r.runner}</td>
                <td className={styles.num}>{formatDuration(r.durationMs)}</td>
                <td className="mono error-text">{r.errorCode}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {runs.length < thread.runCount ? <Link href={`/admin/runs?thread=${thread.id}`}>{t.allRuns}</Link> : null}
    </section>
  );
}

function ThreadMessages({ threadId, count }: { threadId: string; count: number }) {
  const errorText = useRequestErrorText();
  const dates = useConsoleDates();
  const trpc = useTRPC();
  const messages = useInfiniteQuery(
    trpc.adminThreads.messages.infiniteQueryOptions(
      { id: threadId, limit: 100 },
      { initialCursor: 0, getNextPageParam: (last) => last.nextCursor ?? undefined },
    ),
  );
  const rows = messages.data?.pages.flatMap((p) => p.items) ?? [];
  const c = useDictionary().console;
  const t = c.thread;
  return (
    <section className="card" aria-labelledby="messages-title" data-testid="thread-messages">
      <h2 id="messages-title" className={styles.sectionTitle}>
        {t.messages(rows.length, count)}
      </h2>
      {messages.error ? (
        <p role="alert" className="error-text">
          {errorText(messages.error)}
        </p>
      ) : null}
      {rows.map((m) => (
        <article key={m.id} className={styles.message} data-testid="thread-message" data-role={m.role}>
          <div className={styles.messageHead}>
            <span className="mono">#{m.seq}</span>
            <span className="pill">{m.role}</span>
            <span className="muted">{dates.dateTime(m.createdAt)}</span>
            <span className={`muted mono ${styles.truncate}`}>{m.messageId}</span>
            {m.runId ? <Link href={`/admin/runs/${m.runId}`}>{t.run}</Link> : null}
          </div>
          <p className={styles.messageBody}>{m.content}</p>
          {m.uiSchema ? <UiSchemaView schema={m.uiSchema} /> : null}
          <JsonBlock value={m.metadata} summary="metadata" testId="message-metadata" />
        </article>
      ))}
      {messages.hasNextPage ? (
        <button className="btn" type="button" onClick={() => void messages.fetchNextPage()} disabled={messages.isFetchingNextPage}>
          {messages.isFetchingNextPage ? c.loading : t.moreMessages}
        </button>
      ) : null}
    </section>
  );
}

export function ThreadDetailView({ id }: { id: string }) {
  const errorText = useRequestErrorText();
  const dates = useConsoleDates();
  const trpc = useTRPC();
  const detail = useQuery(trpc.adminThreads.get.queryOptions({ id }));
  const t = useDictionary().console.thread;
  if (detail.isPending) return <p className="muted">{t.loading}</p>;
  if (detail.error) {
    return (
      <p role="alert" className="error-text">
        {errorText(detail.error)}
      </p>
    );
  }
  const { thread } = detail.data;
  return (
    <>
      <p style={{ margin: 0 }}>
        <Link href="/admin/threads">{t.allThreads}</Link>
      </p>
      <section className="card" aria-labelledby="thread-title" data-testid="thread-header">
        <h1 id="thread-title" className={styles.title} style={{ marginBottom: 12 }}>
          {thread.title}
        </h1>
        <dl className={styles.facts}>
          <div>
            <dt>{t.owner}</dt>
            <dd>
              <Link href={`/admin/threads?user=${encodeURIComponent(thread.userEmail)}`}>{thread.userEmail}</Link>
            </dd>
          </div>
          <div>
            <dt>{t.threadId}</dt>
            <dd className="mono">{thread.id}</dd>
          </div>
          <div>
            <dt>{t.created}</dt>
            <dd>{dates.dateTime(thread.createdAt)}</dd>
          </div>
          <div>
            <dt>{t.lastActivity}</dt>
            <dd>{dates.dateTime(thread.updatedAt)}</dd>
          </div>
        </dl>
      </section>
      <ThreadRuns detail={detail.data} />
      <ThreadMessages threadId={thread.id} count={thread.messageCount} />
    </>
  );
}
