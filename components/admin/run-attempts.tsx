"use client";
import { useDictionary } from "../i18n/use-dictionary";
import { useConsoleDates, type AdminOutputs } from "./format";
import styles from "./admin.module.css";

type Attempt = AdminOutputs["adminRuns"]["get"]["attempts"][number];

/** Where a run executed: one row per execution, with why it moved on (or ended the run). */
export function RunAttempts({ attempts }: { attempts: Attempt[] }) {
  const dates = useConsoleDates();
  const t = useDictionary().console.attempts;
  return (
    <section className="card" aria-labelledby="attempts-title" data-testid="run-attempts">
      <h2 id="attempts-title" className={styles.sectionTitle}>
        {t.title}
      </h2>
      {attempts.length === 0 ? (
        <p className="muted">{t.none}</p>
      ) : (
        <div className="table-wrap" tabIndex={0}>
          <table className="data">
            <caption className={styles.caption}>{t.caption}</caption>
            <thead>
              <tr>
                <th scope="col" className={styles.num}>
                  {t.number}
                </th>
                <th scope="col">{t.instance}</th>
                <th scope="col">{t.started}</th>
                <th scope="col">{t.ended}</th>
                <th scope="col">{t.why}</th>
              </tr>
            </thead>
            <tbody>
              {attempts.map((a) => (
                <tr key={a.attempt} data-testid="attempt-row" data-end-reason={a.endReason ?? ""}>
                  <td className={styles.num}>{a.attempt}</td>
                  <td className={`mono ${styles.truncate}`} title={a.instance}>
                    {a.instance}
                  </td>
                  <td className={styles.nowrap}>{dates.dateTime(a.startedAt)}</td>
                  <td className={styles.nowrap}>{a.endedAt ? dates.dateTime(a.endedAt) : "—"}</td>
                  <td>{a.endReason ? (t.reasons[a.endReason] ?? a.endReason) : t.executing}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
