"use client";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { useDictionary } from "../i18n/use-dictionary";
import { useConsoleDates, formatDuration } from "./format";
import styles from "./admin.module.css";

function resultClass(result: string): string {
  if (result === "ok") return "pill pill-ok";
  if (result === "cancelled") return "pill";
  return "pill pill-bad";
}

/** The host API calls a runner made for one run (audit), refused ones included. */
export function RunnerApiCalls({ runId }: { runId: string }) {
  const dates = useConsoleDates();
  const trpc = useTRPC();
  const calls = useQuery(trpc.runnerApiCalls.list.queryOptions({ runId }));
  const t = useDictionary().console.host;
  if (!calls.data || calls.data.calls.length === 0) return null;
  const { calls: rows, truncated } = calls.data;
  const refused = rows.filter((c) => c.result !== "ok").length;
  return (
    <section className="card" aria-labelledby="runner-api-calls-title" data-testid="runner-api-calls">
      <h2 id="runner-api-calls-title" className={styles.sectionTitle}>
        {t.apiCalls(rows.length, truncated, refused)}
      </h2>
      <div className="table-wrap" tabIndex={0}>
        <table className="data">
          <thead>
            <tr>
              <th>{t.time}</th>
              <th>{t.action}</th>
              <th>{t.resource}</th>
              <th>{t.scope}</th>
              <th>{t.result}</th>
              <th>{t.latency}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => (
              <tr key={c.id} data-testid="runner-api-call-row">
                <td className="mono">{dates.time(c.createdAt)}</td>
                <td className="mono">{c.action}</td>
                <td className="mono">{c.resource ?? "–"}</td>
                <td className="mono">{c.scope ?? "–"}</td>
                <td>
                  <span className={resultClass(c.result)} data-testid="runner-api-call-result">
                    {c.result}
                  </span>
                </td>
                <td>{formatDuration(c.latencyMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {truncated ? <p className="muted">{t.onlyFirst(rows.length)}</p> : null}
    </section>
  );
}
