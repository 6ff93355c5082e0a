"use client";
import { useState } from "react";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
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
  const trpc = useTRPC();
  const [span, setSpan] = useState<DashboardWindow>("24h");
  const dashboard = useQuery(trpc.adminDashboard.get.queryOptions({ window: span }));
  const d = dashboard.data;
  return (
    <section className="card" aria-labelledby="dashboard-title" data-testid="dashboard">
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h2 id="dashboard-title" className={styles.sectionTitle}>
          Activity
        </h2>
        <div className={styles.segmented} role="group" aria-label="Time window">
          {WINDOWS.map((w) => (
            <button key={w.value} type="button" aria-pressed={span === w.value} onClick={() => setSpan(w.value)}>
              {w.label}
            </button>
          ))}
        </div>
      </div>
      {dashboard.isPending ? <p className="muted">Loading…</p> : null}
      {dashboard.error ? <p className="error-text">{dashboard.error.message}</p> : null}
      {d ? (
        <>
          <div className={styles.tiles}>
            <Tile testId="stat-runs" label="Runs" value={String(d.runs.total)} note={`${d.runs.active} in progress`} />
            <Tile
              testId="stat-error-rate"
              label="Error rate"
              value={formatPercent(d.runs.errorRate)}
              note={`${d.runs.failed} failed, ${d.runs.cancelled} cancelled`}
            />
            <Tile testId="stat-p50" label="Duration p50" value={formatDuration(d.runs.p50Ms)} />
            <Tile testId="stat-p95" label="Duration p95" value={formatDuration(d.runs.p95Ms)} />
            <Tile
              testId="stat-tool-failure-rate"
              label="Tool failure rate"
              value={formatPercent(d.tools.failureRate)}
              note={`${d.tools.failed} of ${d.tools.total} tool calls failed; ${d.tools.partial} partial (done, with a note)`}
            />
          </div>
          <RunsPerHourChart buckets={d.perHour} />
          <p className="muted" style={{ fontSize: 13, marginBottom: 0 }}>
            Error rate counts failed runs among finished ones. <Link href="/admin/runs?error=yes">See runs with errors</Link>
          </p>
        </>
      ) : null}
    </section>
  );
}
