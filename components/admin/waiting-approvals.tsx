"use client";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { useDictionary, useI18n, useRequestErrorText } from "../i18n/use-dictionary";
import { useConsoleDates } from "./format";
import styles from "./admin.module.css";

// Requests waiting for their owners across users (docs/approvals.md, "The inbox"): who, in which
// chat, the question as the owner reads it, since when, and a link to the run. Read-only: an admin
// does not decide for a user here (the run page's approvals say who decided what).

const REFRESH_MS = 20_000;

export function WaitingApprovals() {
  const t = useDictionary().console.waiting;
  const { locale } = useI18n();
  const dates = useConsoleDates();
  const errorText = useRequestErrorText();
  const trpc = useTRPC();
  const list = useQuery({ ...trpc.adminRuns.waitingApprovals.queryOptions({ locale }), refetchInterval: REFRESH_MS });
  return (
    <section data-testid="admin-waiting-approvals">
      <p className="muted">{t.intro}</p>
      {list.error ? (
        <p role="alert" className="error-text">
          {errorText(list.error)}
        </p>
      ) : null}
      {list.data?.length === 0 ? <p className="muted">{t.none}</p> : null}
      {list.data && list.data.length > 0 ? (
        <div className="table-wrap" tabIndex={0} role="region" aria-label={t.caption}>
          <table className="data">
            <caption className="sr-only">{t.caption}</caption>
            <thead>
              <tr>
                <th scope="col">{t.who}</th>
                <th scope="col">{t.question}</th>
                <th scope="col">{t.thread}</th>
                <th scope="col">{t.since}</th>
                <th scope="col">{t.expires}</th>
                <th scope="col">{t.run}</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((item) => (
                <tr key={item.id} data-testid="admin-waiting-approval" data-approval-id={item.id}>
                  <td>{item.ownerEmail}</td>
                  <td className={styles.wrap}>{item.question}</td>
                  <td>
                    <Link href={`/admin/threads/${item.threadId}`}>{item.threadTitle}</Link>
                  </td>
                  <td>{dates.dateTime(item.createdAt)}</td>
                  <td>{dates.dateTime(item.expiresAt)}</td>
                  <td>
                    <Link href={`/admin/runs/${item.runId}`} data-testid="admin-waiting-run">
                      {t.openRun}
                    </Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
