"use client";
import Link from "next/link";
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { UiSchemaView } from "../ui-schema/ui-schema-view";
import { useTRPC } from "../trpc-provider";
import { useConsoleDates, formatDuration, statusPillClass, type AdminOutputs } from "./format";
import { JsonBlock } from "./json-block";
import styles from "./admin.module.css";

type ThreadDetail = AdminOutputs["adminThreads"]["get"];

function ThreadRuns({ detail }: { detail: ThreadDetail }) {
  const dates = useConsoleDates();
  const { thread, runs } = detail;
  return (
    <section className="card" aria-labelledby="thread-runs-title">
      <h2 id="thread-runs-title" className={styles.sectionTitle}>
        Runs
      </h2>
      <div className="table-wrap" tabIndex={0}>
        <table className="data" data-testid="thread-runs">
          <caption className={styles.caption}>
            {runs.length < thread.runCount ? `Newest ${runs.length} of ${thread.runCount} runs` : `${thread.runCount} run${thread.runCount === 1 ? "" : "s"}`}
          </caption>
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">Run</th>
              <th scope="col">Status</th>
              <th scope="col">Runner</th>
              <th scope="col" className={styles.num}>
                Duration
              </th>
              <th scope="col">Error</th>
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
                  <span className={statusPillClass(r.status)}>{r.status}</span>
                </td>
                <td className={`mono ${styles.truncate}`}>{r.runner}</td>
                <td className={styles.num}>{formatDuration(r.durationMs)}</td>
                <td className="mono error-text">{r.errorCode}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {runs.length < thread.runCount ? <Link href={`/admin/runs?thread=${thread.id}`}>All runs of this thread</Link> : null}
    </section>
  );
}

function ThreadMessages({ threadId, count }: { threadId: string; count: number }) {
  const dates = useConsoleDates();
  const trpc = useTRPC();
  const messages = useInfiniteQuery(
    trpc.adminThreads.messages.infiniteQueryOptions(
      { id: threadId, limit: 100 },
      { initialCursor: 0, getNextPageParam: (last) => last.nextCursor ?? undefined },
    ),
  );
  const rows = messages.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <section className="card" aria-labelledby="messages-title" data-testid="thread-messages">
      <h2 id="messages-title" className={styles.sectionTitle}>
        Messages ({rows.length < count ? `${rows.length} of ${count}` : count})
      </h2>
      {messages.error ? (
        <p role="alert" className="error-text">
          {messages.error.message}
        </p>
      ) : null}
      {rows.map((m) => (
        <article key={m.id} className={styles.message} data-testid="thread-message" data-role={m.role}>
          <div className={styles.messageHead}>
            <span className="mono">#{m.seq}</span>
            <span className="pill">{m.role}</span>
            <span className="muted">{dates.dateTime(m.createdAt)}</span>
            <span className={`muted mono ${styles.truncate}`}>{m.messageId}</span>
            {m.runId ? <Link href={`/admin/runs/${m.runId}`}>run</Link> : null}
          </div>
          <p className={styles.messageBody}>{m.content}</p>
          {m.uiSchema ? <UiSchemaView schema={m.uiSchema} /> : null}
          <JsonBlock value={m.metadata} summary="metadata" testId="message-metadata" />
        </article>
      ))}
      {messages.hasNextPage ? (
        <button className="btn" type="button" onClick={() => void messages.fetchNextPage()} disabled={messages.isFetchingNextPage}>
          {messages.isFetchingNextPage ? "Loading…" : "Load more messages"}
        </button>
      ) : null}
    </section>
  );
}

export function ThreadDetailView({ id }: { id: string }) {
  const dates = useConsoleDates();
  const trpc = useTRPC();
  const detail = useQuery(trpc.adminThreads.get.queryOptions({ id }));
  if (detail.isPending) return <p className="muted">Loading thread…</p>;
  if (detail.error) {
    return (
      <p role="alert" className="error-text">
        {detail.error.message}
      </p>
    );
  }
  const { thread } = detail.data;
  return (
    <>
      <p style={{ margin: 0 }}>
        <Link href="/admin/threads">← All threads</Link>
      </p>
      <section className="card" aria-labelledby="thread-title" data-testid="thread-header">
        <h1 id="thread-title" className={styles.title} style={{ marginBottom: 12 }}>
          {thread.title}
        </h1>
        <dl className={styles.facts}>
          <div>
            <dt>Owner</dt>
            <dd>
              <Link href={`/admin/threads?user=${encodeURIComponent(thread.userEmail)}`}>{thread.userEmail}</Link>
            </dd>
          </div>
          <div>
            <dt>Thread id</dt>
            <dd className="mono">{thread.id}</dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>{dates.dateTime(thread.createdAt)}</dd>
          </div>
          <div>
            <dt>Last activity</dt>
            <dd>{dates.dateTime(thread.updatedAt)}</dd>
          </div>
        </dl>
      </section>
      <ThreadRuns detail={detail.data} />
      <ThreadMessages threadId={thread.id} count={thread.messageCount} />
    </>
  );
}
