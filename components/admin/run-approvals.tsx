"use client";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { useConsoleDates } from "./format";
import { JsonBlock } from "./json-block";
import { useDictionary } from "../i18n/use-dictionary";
import styles from "./admin.module.css";

const STATUS_CLASS: Record<string, string> = { pending: "pill", approved: "pill pill-ok", denied: "pill pill-bad", expired: "pill pill-bad", superseded: "pill" };

/** The approvals a run asked for (or carried to the model), and who decided what and when (docs/approvals.md). */
export function RunApprovals({ runId }: { runId: string }) {
  const dates = useConsoleDates();
  const trpc = useTRPC();
  const approvals = useQuery(trpc.adminRuns.approvals.queryOptions({ id: runId }));
  const t = useDictionary().console.run;
  if (!approvals.data || approvals.data.length === 0) return null;
  return (
    <section className="card" aria-labelledby="run-approvals-title" data-testid="run-approvals">
      <h2 id="run-approvals-title" className={styles.sectionTitle}>
        {t.approvals(approvals.data.length)}
      </h2>
      <div className="table-wrap">
        <table className="data">
          <thead>
            <tr>
              <th scope="col">{t.action}</th>
              <th scope="col">{t.status}</th>
              <th scope="col">{t.decidedBy}</th>
              <th scope="col">{t.when}</th>
              <th scope="col">{t.reason}</th>
              <th scope="col">{t.input}</th>
            </tr>
          </thead>
          <tbody>
            {approvals.data.map((a) => (
              <tr key={a.id} data-testid="run-approval-row" data-status={a.status}>
                <td className="mono">
                  {a.action}
                  {a.askedByThisRun ? null : <span className="muted">{t.earlierRun}</span>}
                </td>
                <td>
                  <span className={STATUS_CLASS[a.status] ?? "pill"}>{a.status}</span>
                </td>
                <td>
                  {a.decidedByEmail ?? "–"}
                  {a.decidedAsAdmin ? <span className="muted">{t.asAdmin(a.ownerEmail)}</span> : null}
                </td>
                <td>{a.decidedAt ? dates.dateTime(a.decidedAt) : t.expires(dates.dateTime(a.expiresAt))}</td>
                <td>{a.reason ?? ""}</td>
                <td>
                  <JsonBlock value={a.editedInput ? { asked: a.originalInput, approved: a.editedInput } : a.originalInput} summary={a.editedInput ? "input (edited)" : "input"} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
