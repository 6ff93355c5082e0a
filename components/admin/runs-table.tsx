"use client";
import { useState } from "react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useInfiniteQuery } from "@tanstack/react-query";
import type { RunFilters } from "@/server/services/admin-runs";
import { useTRPC } from "../trpc-provider";
import { useConsoleDates, formatDuration, statusPillClass } from "./format";
import { RUN_STATUSES, runFiltersToSearch } from "./run-filters";
import styles from "./admin.module.css";

type Draft = {
  statuses: RunFilters["statuses"];
  userEmail: string;
  threadId: string;
  protocol: string;
  from: string;
  to: string;
  minDurationMs: string;
  hasError: "" | "yes" | "no";
  awaitingApproval: boolean;
};

// datetime-local fields hold the browser's local wall time without a zone.
function toLocalInput(at: Date | undefined): string {
  if (!at) return "";
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

function toDraft(f: RunFilters): Draft {
  return {
    statuses: f.statuses ?? [],
    userEmail: f.userEmail ?? "",
    threadId: f.threadId ?? "",
    protocol: f.protocol ?? "",
    from: toLocalInput(f.createdFrom),
    to: toLocalInput(f.createdTo),
    minDurationMs: f.minDurationMs === undefined ? "" : String(f.minDurationMs),
    hasError: f.hasError === undefined ? "" : f.hasError ? "yes" : "no",
    awaitingApproval: f.awaitingApproval ?? false,
  };
}

function fromDraft(d: Draft): RunFilters {
  const f: RunFilters = {};
  if (d.statuses?.length) f.statuses = d.statuses;
  if (d.userEmail.trim()) f.userEmail = d.userEmail.trim();
  if (d.threadId.trim()) f.threadId = d.threadId.trim();
  if (d.protocol.trim()) f.protocol = d.protocol.trim();
  if (d.from) f.createdFrom = new Date(d.from);
  if (d.to) f.createdTo = new Date(d.to);
  if (d.minDurationMs !== "") f.minDurationMs = Math.max(0, Math.round(Number(d.minDurationMs)));
  if (d.hasError) f.hasError = d.hasError === "yes";
  if (d.awaitingApproval) f.awaitingApproval = true;
  return f;
}

export function RunsTable({ initialFilters }: { initialFilters: RunFilters }) {
  const dates = useConsoleDates();
  const trpc = useTRPC();
  const router = useRouter();
  const [filters, setFilters] = useState<RunFilters>(initialFilters);
  // On a phone the form is folded behind a button, so the runs are on the first screen.
  const [filtersOpen, setFiltersOpen] = useState(false);
  const [draft, setDraft] = useState<Draft>(() => toDraft(initialFilters));
  const runs = useInfiniteQuery(
    trpc.adminRuns.list.infiniteQueryOptions({ ...filters, limit: 25 }, { getNextPageParam: (last) => last.nextCursor ?? undefined }),
  );
  const rows = runs.data?.pages.flatMap((p) => p.items) ?? [];

  const apply = (next: RunFilters) => {
    setFilters(next);
    setDraft(toDraft(next));
    const search = runFiltersToSearch(next);
    router.replace(search ? `/admin/runs?${search}` : "/admin/runs", { scroll: false });
  };
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const toggleStatus = (status: (typeof RUN_STATUSES)[number], on: boolean) =>
    set("statuses", on ? [...(draft.statuses ?? []), status] : (draft.statuses ?? []).filter((s) => s !== status));

  return (
    <>
      <section className="card" aria-labelledby="run-filters-title">
        <div className="row">
          <h2 id="run-filters-title" className={styles.sectionTitle}>
            Filters
          </h2>
          <button type="button" className={`btn ${styles.filtersToggle}`} aria-expanded={filtersOpen} aria-controls="runs-filter-form" onClick={() => setFiltersOpen((o) => !o)}>
            {filtersOpen ? "Hide filters" : "Show filters"}
          </button>
        </div>
        <form
          id="runs-filter-form"
          className={styles.filters}
          data-open={filtersOpen ? "true" : "false"}
          data-testid="runs-filter-form"
          onSubmit={(e) => {
            e.preventDefault();
            apply(fromDraft(draft));
          }}
        >
          <fieldset>
            <legend>Status</legend>
            <div className={styles.checks}>
              {RUN_STATUSES.map((s) => (
                <label key={s}>
                  <input type="checkbox" checked={draft.statuses?.includes(s) ?? false} onChange={(e) => toggleStatus(s, e.target.checked)} /> {s}
                </label>
              ))}
            </div>
          </fieldset>
          <div className="field">
            <label htmlFor="f-user">User email</label>
            <input id="f-user" className="input" value={draft.userEmail} onChange={(e) => set("userEmail", e.target.value)} placeholder="any part" />
          </div>
          <div className="field">
            <label htmlFor="f-thread">Thread id</label>
            <input id="f-thread" className="input mono" value={draft.threadId} onChange={(e) => set("threadId", e.target.value)} pattern="[0-9a-fA-F-]{36}" />
          </div>
          <div className="field">
            <label htmlFor="f-protocol">Protocol</label>
            <input id="f-protocol" className="input" value={draft.protocol} onChange={(e) => set("protocol", e.target.value)} placeholder="ag-ui" />
          </div>
          <div className="field">
            <label htmlFor="f-from">Created from</label>
            <input id="f-from" className="input" type="datetime-local" value={draft.from} onChange={(e) => set("from", e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="f-to">Created before</label>
            <input id="f-to" className="input" type="datetime-local" value={draft.to} onChange={(e) => set("to", e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="f-min">Min duration (ms)</label>
            <input id="f-min" className="input" type="number" min={0} step={1} value={draft.minDurationMs} onChange={(e) => set("minDurationMs", e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="f-error">Error</label>
            <select id="f-error" className="input" value={draft.hasError} onChange={(e) => set("hasError", e.target.value as Draft["hasError"])}>
              <option value="">any</option>
              <option value="yes">with an error</option>
              <option value="no">without errors</option>
            </select>
          </div>
          <div className="field">
            <label>
              <input type="checkbox" checked={draft.awaitingApproval} onChange={(e) => set("awaitingApproval", e.target.checked)} data-testid="f-awaiting-approval" /> Waiting for approval
            </label>
          </div>
          <div className={styles.actions}>
            <button className="btn btn-primary" type="submit">
              Apply filters
            </button>
            <button className="btn" type="button" onClick={() => apply({})}>
              Reset
            </button>
          </div>
        </form>
      </section>

      <section className="card" aria-label="Run list">
        {runs.error ? (
          <p role="alert" className="error-text">
            {runs.error.message}
          </p>
        ) : null}
        <div className="table-wrap" tabIndex={0}>
          <table className="data" data-testid="runs-table" aria-busy={runs.isFetching}>
            <caption className={styles.caption}>
              Runs, newest first{runs.isPending ? " (loading…)" : ` (${rows.length}${runs.hasNextPage ? "+" : ""} shown)`}
            </caption>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Status</th>
                <th scope="col">Run</th>
                <th scope="col">User</th>
                <th scope="col">Thread</th>
                <th scope="col">Protocol / runner</th>
                <th scope="col" className={styles.num}>
                  Duration
                </th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id} data-testid="run-row" data-run-id={r.runId} data-status={r.status}>
                  <td className={styles.nowrap}>{dates.dateTime(r.createdAt)}</td>
                  <td>
                    <span className={statusPillClass(r.status)}>{r.status}</span>
                  </td>
                  <td className={`${r.prompt?.trim() ? "" : "mono "}${styles.truncate}`}>
                    <Link href={`/admin/runs/${r.id}`} title={`Run ${r.runId}`} data-testid="run-link">
                      {r.prompt?.trim() || r.runId}
                    </Link>
                  </td>
                  <td>{r.userEmail}</td>
                  <td className="mono">
                    <Link href={`/admin/threads/${r.threadId}`} title={r.threadId}>
                      {r.threadId.slice(0, 8)}…
                    </Link>
                  </td>
                  <td>
                    {r.protocol}
                    <div className={`muted mono ${styles.truncate}`} title={r.runner}>
                      {r.runner}
                      {r.model ? ` · ${r.model}` : ""}
                    </div>
                  </td>
                  <td className={styles.num}>{r.durationMs !== null ? formatDuration(r.durationMs) : r.status}</td>
                  <td className={styles.truncate} title={r.errorMessage ?? undefined}>
                    {r.errorCode ? <span className="error-text mono">{r.errorCode}</span> : null}
                  </td>
                </tr>
              ))}
              {!runs.isPending && rows.length === 0 ? (
                <tr>
                  <td colSpan={8} className="muted" data-testid="runs-empty">
                    No runs match these filters.
                  </td>
                </tr>
              ) : null}
            </tbody>
          </table>
        </div>
        {runs.hasNextPage ? (
          <button className="btn" type="button" data-testid="runs-load-more" onClick={() => void runs.fetchNextPage()} disabled={runs.isFetchingNextPage}>
            {runs.isFetchingNextPage ? "Loading…" : "Load more"}
          </button>
        ) : null}
      </section>
    </>
  );
}
