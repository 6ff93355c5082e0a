"use client";
import { useState } from "react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useInfiniteQuery } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { useDictionary, useRequestErrorText } from "../i18n/use-dictionary";
import { useConsoleDates } from "./format";
import styles from "./admin.module.css";

// Long: one table: its filter, its paging and its rows share one query state.
export function ThreadsTable({ initialUserEmail }: { initialUserEmail: string }) {
  const errorText = useRequestErrorText();
  const dates = useConsoleDates();
  const c = useDictionary().console;
  const t = c.threads;
  const trpc = useTRPC();
  const router = useRouter();
  const [userEmail, setUserEmail] = useState(initialUserEmail);
  const [draft, setDraft] = useState(initialUserEmail);
  const threads = useInfiniteQuery(
    trpc.adminThreads.list.infiniteQueryOptions(
      { userEmail: userEmail || undefined, limit: 25 },
      { getNextPageParam: (last) => last.nextCursor ?? undefined },
    ),
  );
  const rows = threads.data?.pages.flatMap((p) => p.items) ?? [];
  const apply = (email: string) => {
    setUserEmail(email);
    setDraft(email);
    router.replace(email ? `/admin/threads?user=${encodeURIComponent(email)}` : "/admin/threads", { scroll: false });
  };

  return (
    <section className="card" aria-label={t.list}>
      <form
        className="row"
        style={{ marginBottom: 12 }}
        onSubmit={(e) => {
          e.preventDefault();
          apply(draft.trim());
        }}
      >
        <label htmlFor="threads-user">{t.owner}</label>
        <input id="threads-user" className="input" style={{ maxWidth: 280 }} value={draft} onChange={(e) => setDraft(e.target.value)} placeholder={c.runs.anyPart} />
        <button className="btn btn-primary" type="submit">
          {t.filter}
        </button>
        {userEmail ? (
          <button className="btn" type="button" onClick={() => apply("")}>
            {t.clear}
          </button>
        ) : null}
      </form>
      {threads.error ? (
        <p role="alert" className="error-text">
          {errorText(threads.error)}
        </p>
      ) : null}
      <div className="table-wrap" tabIndex={0}>
        <table className="data" data-testid="threads-table" aria-busy={threads.isFetching}>
          <caption className={styles.caption}>{t.caption}</caption>
          <thead>
            <tr>
              <th scope="col">{t.title}</th>
              <th scope="col">{t.ownerColumn}</th>
              <th scope="col" className={styles.num}>
                {t.messages}
              </th>
              <th scope="col" className={styles.num}>
                {t.runs}
              </th>
              <th scope="col">{t.lastActivity}</th>
              <th scope="col">{t.created}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((t) => (
              <tr key={t.id} data-testid="thread-row" data-thread-id={t.id}>
                <td className={styles.truncate}>
                  <Link href={`/admin/threads/${t.id}`} title={t.title}>
                    {t.title}
                  </Link>
                </td>
                <td>{t.userEmail}</td>
                <td className={styles.num}>{t.messageCount}</td>
                <td className={styles.num}>
                  <Link href={`/admin/runs?thread=${t.id}`}>{t.runCount}</Link>
                </td>
                <td className={styles.nowrap}>{dates.dateTime(t.updatedAt)}</td>
                <td className={`${styles.nowrap} muted`}>{dates.dateTime(t.createdAt)}</td>
              </tr>
            ))}
            {!threads.isPending && rows.length === 0 ? (
              <tr>
                <td colSpan={6} className="muted">
                  {t.none}
                </td>
              </tr>
            ) : null}
          </tbody>
        </table>
      </div>
      {threads.hasNextPage ? (
        <button className="btn" type="button" onClick={() => void threads.fetchNextPage()} disabled={threads.isFetchingNextPage}>
          {threads.isFetchingNextPage ? c.loading : c.loadMore}
        </button>
      ) : null}
    </section>
  );
}
