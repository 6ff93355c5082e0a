"use client";
import { useState } from "react";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { useDictionary, useRequestErrorText } from "../i18n/use-dictionary";
import { formatDuration, formatPercent } from "./format";
import { RunsPerHourChart } from "./runs-per-hour-chart";
import styles from "./admin.module.css";

const WINDOWS = [
  { value: "24h", label: "24 h" },
  { value: "7d", label: "7 d" },
] as const;
type DashboardWindow = (typeof WINDOWS)[number]["value"];

function Tile({ label, value, note, testId }: { label: string; value: string; note?: string; testId: string }) {
  return (
    <div className={styles.tile} data-testid={testId} data-value={value}>
      <div className={styles.tileLabel}>{label}</div>
      <div className={styles.tileValue}>{value}</div>
      {note ? <div className={styles.tileNote}>{note}</div> : null}
    </div>
  );
}

export function DashboardPanel() {
  const errorText = useRequestErrorText();
  const trpc = useTRPC();
  const [span, setSpan] = useState<DashboardWindow>("24h");
  const dashboard = useQuery(trpc.adminDashboard.get.queryOptions({ window: span }));
  const d = dashboard.data;
  const c = useDictionary().console;
  const t = c.dashboard;
  return (
    <section className="card" aria-labelledby="dashboard-title" data-testid="dashboard">
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h2 id="dashboard-title" className={styles.sectionTitle}>
          {t.title}
        </h2>
        <div className={styles.segmented} role="group" aria-label={t.window}>
          {WINDOWS.map((w) => (
            <button key={w.value} type="button" aria-pressed={span === w.value} onClick={() => setSpan(w.value)}>
              {w.label}
            </button>
          ))}
        </div>
      </div>
      {dashboard.isPending ? <p className="muted">{c.loading}</p> : null}
      {dashboard.error ? <p className="error-text">{errorText(dashboard.error)}</p> : null}
      {d ? (
        <>
          <div className={styles.tiles}>
            <Tile testId="stat-runs" label={t.runs} value={String(d.runs.total)} note={t.inProgress(d.runs.active)} />
            <Tile
              testId="stat-error-rate"
              label={t.errorRate}
              value={formatPercent(d.runs.errorRate)}
              note={t.failedCancelled(d.runs.failed, d.runs.cancelled)}
            />
            <Tile testId="stat-p50" label={t.p50} value={formatDuration(d.runs.p50Ms)} />
            <Tile testId="stat-p95" label={t.p95} value={formatDuration(d.runs.p95Ms)} />
            <Tile
              testId="stat-tool-failure-rate"
              label={t.toolFailureRate}
              value={formatPercent(d.tools.failureRate)}
              note={t.toolNote(d.tools.failed, d.tools.total, d.tools.partial)}
            />
          </div>
          <RunsPerHourChart buckets={d.perHour} />
          <p className="muted" style={{ fontSize: 13, marginBottom: 0 }}>
            {t.errorRateNote} <Link href="/admin/runs?error=yes">{t.seeErrors}</Link>
          </p>
        </>
      ) : null}
    </section>
  );
}
