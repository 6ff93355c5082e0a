"use client";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { useDictionary } from "../i18n/use-dictionary";
import { JsonBlock } from "./json-block";
import styles from "./admin.module.css";

const DISPOSITION_CLASS: Record<string, string> = {
  applied: "pill pill-ok",
  duplicate: "pill",
  ignored: "pill",
  rejected: "pill pill-bad",
  host: "pill",
};

/** The external runner's result stream for one run, and what the host did with each result. */
export function RunnerResults({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const results = useQuery(trpc.runners.results.queryOptions({ runId }));
  const t = useDictionary().console.host;
  if (!results.data || results.data.length === 0) return null;
  return (
    <section className="card" aria-labelledby="runner-results-title" data-testid="runner-results">
      <h2 id="runner-results-title" className={styles.sectionTitle}>
        {t.results(results.data.length)}
      </h2>
      <div className="table-wrap" tabIndex={0}>
        <table className="data">
          <thead>
            <tr>
              <th>#</th>
              <th>{t.seq}</th>
              <th>{t.type}</th>
              <th>{t.host}</th>
              <th>{t.detail}</th>
              <th>{t.data}</th>
            </tr>
          </thead>
          <tbody>
            {results.data.map((r) => (
              <tr key={r.idx} data-testid="runner-result-row">
                <td>{r.idx}</td>
                <td>{r.sequence ?? "–"}</td>
                <td className="mono">{r.type}</td>
                <td>
                  <span className={DISPOSITION_CLASS[r.disposition] ?? "pill"}>{r.disposition}</span>
                </td>
                <td>{r.detail ?? ""}</td>
                <td>
                  <JsonBlock value={r.data} summary="data" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
