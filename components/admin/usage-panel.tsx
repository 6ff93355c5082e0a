"use client";
import { useMemo, useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { useDictionary, useRequestErrorText } from "../i18n/use-dictionary";
import { formatDuration, useConsoleCount, type AdminOutputs } from "./format";
import styles from "./admin.module.css";

type LedgerRow = AdminOutputs["usage"]["report"][number];
type GroupBy = "day" | "user" | "key" | "model";

const DAY_MS = 86_400_000;
const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const GROUPS: { id: GroupBy; label: "day" | "user" | "key" | "model" }[] = [
  { id: "day", label: "day" },
  { id: "user", label: "user" },
  { id: "key", label: "key" },
  { id: "model", label: "model" },
];

type Totals = { key: string; runs: number; failedRuns: number; inputTokens: number | null; outputTokens: number | null; totalTokens: number | null; toolCalls: number; durationMs: number };

// A count no run of the group reported stays unknown (—), as the ledger keeps it.
const plus = (a: number | null, b: number | null) => (b === null ? a : (a ?? 0) + b);

function groupKey(row: LedgerRow, by: GroupBy): string {
  switch (by) {
    case "day":
      return row.day;
    case "user":
      return row.userEmail;
    case "key":
      return row.apiKeyName ? `${row.apiKeyName} (${row.apiKeyPrefix}…, ${row.userEmail})` : `browser session (${row.userEmail})`;
    case "model":
      return row.model ?? `${row.runner} (no model named)`;
  }
}

function totalsBy(rows: LedgerRow[], by: GroupBy): Totals[] {
  const groups = new Map<string, Totals>();
  for (const r of rows) {
    const key = groupKey(r, by);
    const t = groups.get(key) ?? { key, runs: 0, failedRuns: 0, inputTokens: null, outputTokens: null, totalTokens: null, toolCalls: 0, durationMs: 0 };
    t.runs += r.runs;
    t.failedRuns += r.failedRuns;
    t.inputTokens = plus(t.inputTokens, r.inputTokens);
    t.outputTokens = plus(t.outputTokens, r.outputTokens);
    t.totalTokens = plus(t.totalTokens, r.totalTokens);
    t.toolCalls += r.toolCalls;
    t.durationMs += r.durationMs;
    groups.set(key, t);
  }
  const list = [...groups.values()];
  return by === "day" ? list.sort((a, b) => a.key.localeCompare(b.key)) : list.sort((a, b) => (b.totalTokens ?? 0) - (a.totalTokens ?? 0));
}

/** Tokens per day as SVG bars; the summary is the accessible name. */
function TokensPerDayChart({ days }: { days: Totals[] }) {
  const t = useDictionary().console.usage;
  const count = useConsoleCount();
  const max = Math.max(1, ...days.map((d) => d.totalTokens ?? 0));
  const width = Math.max(1, days.length) * 24;
  const summary = t.chartSummary(count(days.reduce((n, d) => n + (d.totalTokens ?? 0), 0)), days.length);
  return (
    <figure style={{ margin: 0 }} data-testid="usage-chart">
      <svg className={styles.chart} viewBox={`0 0 ${width} 100`} preserveAspectRatio="none" role="img" aria-label={summary}>
        <line className={styles.chartAxis} x1={0} x2={width} y1={99.5} y2={99.5} vectorEffect="non-scaling-stroke" />
        {days.map((d, i) => {
          const h = ((d.totalTokens ?? 0) / max) * 96;
          return (
            <g key={d.key} data-testid="usage-bar" data-tokens={d.totalTokens ?? 0}>
              <title>{t.chartBar(d.key, count(d.totalTokens), count(d.runs))}</title>
              <rect className={styles.chartBar} x={i * 24 + 2} y={100 - h} width={20} height={h} />
            </g>
          );
        })}
      </svg>
      <figcaption className={styles.legend}>{summary}</figcaption>
    </figure>
  );
}

/** The usage ledger for a range of days: tiles, tokens per day, a table by user, key, model or day, and CSV export. */
// Long: one panel: its period, its totals and its export share one query state.
export function UsagePanel() {
  const errorText = useRequestErrorText();
  const count = useConsoleCount();
  const t = useDictionary().console.usage;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [from, setFrom] = useState(() => isoDay(new Date(Date.now() - 13 * DAY_MS)));
  const [to, setTo] = useState(() => isoDay(new Date()));
  const [by, setBy] = useState<GroupBy>("user");
  const report = useQuery(trpc.usage.report.queryOptions({ from, to }));
  const rows = useMemo(() => report.data ?? [], [report.data]);
  const days = useMemo(() => totalsBy(rows, "day"), [rows]);
  const groups = useMemo(() => totalsBy(rows, by), [rows, by]);
  const all = totalsBy(rows.map((r) => ({ ...r, day: "all" })), "day")[0];
  const [exportError, setExportError] = useState<string | null>(null);

  async function exportCsv() {
    setExportError(null);
    try {
      const csv = await queryClient.fetchQuery(trpc.usage.csv.queryOptions({ from, to }));
      const url = URL.createObjectURL(new Blob([csv], { type: "text/csv" }));
      const a = document.createElement("a");
      a.href = url;
      a.download = `dispatch-usage-${from}-to-${to}.csv`;
      a.click();
      URL.revokeObjectURL(url);
    } catch (err) {
      setExportError(errorText(err));
    }
  }

  return (
    <section className="card" aria-labelledby="usage-title" data-testid="usage-panel">
      <h2 id="usage-title" className={styles.sectionTitle}>
        {t.title}
      </h2>
      <form className="row" onSubmit={(e) => e.preventDefault()}>
        <label>
          {t.from} <input className="input" type="date" value={from} max={to} onChange={(e) => setFrom(e.target.value)} required />
        </label>
        <label>
          {t.to} <input className="input" type="date" value={to} min={from} onChange={(e) => setTo(e.target.value)} required />
        </label>
        <span className={styles.segmented} role="group" aria-label={t.groupBy}>
          {GROUPS.map((g) => (
            <button key={g.id} type="button" aria-pressed={by === g.id} onClick={() => setBy(g.id)}>
              {t.groups[g.label]}
            </button>
          ))}
        </span>
        <button className="btn" type="button" onClick={() => void exportCsv()} disabled={rows.length === 0}>
          {t.exportCsv}
        </button>
      </form>
      {report.error && (
        <p role="alert" className="error-text">
          {errorText(report.error)}
        </p>
      )}
      {exportError && (
        <p role="alert" className="error-text">
          {exportError}
        </p>
      )}
      <div className={styles.tiles}>
        <div className={styles.tile}>
          <div className={styles.tileLabel}>{t.tokens}</div>
          <div className={styles.tileValue} data-testid="usage-total-tokens">
            {count(all?.totalTokens ?? null)}
          </div>
          <div className={styles.tileNote}>{t.inOut(count(all?.inputTokens ?? null), count(all?.outputTokens ?? null))}</div>
        </div>
        <div className={styles.tile}>
          <div className={styles.tileLabel}>{t.runs}</div>
          <div className={styles.tileValue}>{count(all?.runs ?? 0)}</div>
          <div className={styles.tileNote}>{t.failed(all?.failedRuns ?? 0)}</div>
        </div>
        <div className={styles.tile}>
          <div className={styles.tileLabel}>{t.toolCalls}</div>
          <div className={styles.tileValue}>{count(all?.toolCalls ?? 0)}</div>
        </div>
      </div>
      <TokensPerDayChart days={days} />
      {/* Scrolls sideways on a phone: focusable, so a keyboard can scroll it too. */}
      <div className="table-wrap" tabIndex={0} role="region" aria-label={t.byGroup(t.groups[GROUPS.find((g) => g.id === by)!.label])}>
        <table className="table" data-testid="usage-table">
          <caption className={styles.caption}>{t.byGroup(t.groups[GROUPS.find((g) => g.id === by)!.label])}</caption>
          <thead>
            <tr>
              <th scope="col">{t.groups[GROUPS.find((g) => g.id === by)!.label]}</th>
              <th scope="col" className={styles.num}>{t.runs}</th>
              <th scope="col" className={styles.num}>{t.input}</th>
              <th scope="col" className={styles.num}>{t.output}</th>
              <th scope="col" className={styles.num}>{t.totalTokens}</th>
              <th scope="col" className={styles.num}>{t.toolCalls}</th>
              <th scope="col" className={styles.num}>{t.runTime}</th>
            </tr>
          </thead>
          <tbody>
            {groups.map((g) => (
              <tr key={g.key}>
                <th scope="row" className={styles.truncate} title={g.key}>
                  {g.key}
                </th>
                <td className={styles.num}>{g.runs}</td>
                <td className={styles.num}>{count(g.inputTokens)}</td>
                <td className={styles.num}>{count(g.outputTokens)}</td>
                <td className={styles.num}>{count(g.totalTokens)}</td>
                <td className={styles.num}>{g.toolCalls}</td>
                <td className={styles.num}>{formatDuration(g.durationMs)}</td>
              </tr>
            ))}
            {groups.length === 0 && !report.isLoading && (
              <tr>
                <td colSpan={7} className="muted">
                  {t.none}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
