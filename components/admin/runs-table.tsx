"use client";
import { useState } from "react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useInfiniteQuery } from "@tanstack/react-query";
import type { RunFilters } from "@/server/admin/service/runs";
import { useTRPC } from "../trpc-provider";
import { useDictionary, useRequestErrorText } from "../i18n/use-dictionary";
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
  attempts: "" | NonNullable<RunFilters["attempts"]>;
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
    attempts: f.attempts ?? "",
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
  if (d.attempts) f.attempts = d.attempts;
  return f;
}

// Long: one table: its filters, its paging and its rows share one query state.
export function RunsTable({ initialFilters }: { initialFilters: RunFilters }) {
  const errorText = useRequestErrorText();
  const dates = useConsoleDates();
  const c = useDictionary().console;
  const t = c.runs;
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
            {t.filters}
          </h2>
          <button type="button" className={`btn ${styles.filtersToggle}`} aria-expanded={filtersOpen} aria-controls="runs-filter-form" onClick={() => setFiltersOpen((o) => !o)}>
            {filtersOpen ? t.hideFilters : t.showFilters}
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
            <legend>{t.status}</legend>
            <div className={styles.checks}>
              {RUN_STATUSES.map((s) => (
                <label key={s}>
                  <input type="checkbox" checked={draft.statuses?.includes(s) ?? false} onChange={(e) => toggleStatus(s, e.target.checked)} /> {c.status[s] ?? s}
                </label>
              ))}
            </div>
          </fieldset>
          <div className="field">
            <label htmlFor="f-user">{t.userEmail}</label>
            <input id="f-user" className="input" value={draft.userEmail} onChange={(e) => set("userEmail", e.target.value)} placeholder={t.anyPart} />
          </div>
          <div className="field">
            <label htmlFor="f-thread">{t.threadId}</label>
            <input id="f-thread" className="input mono" value={draft.threadId} onChange={(e) => set("threadId", e.target.value)} pattern="[0-9a-fA-F-]{36}" />
          </div>
          <div className="field">
            <label htmlFor="f-protocol">{t.protocol}</label>
            <input id="f-protocol" className="input" value={draft.protocol} onChange={(e) => set("protocol", e.target.value)} placeholder="ag-ui" />
          </div>
          <div className="field">
            <label htmlFor="f-from">{t.createdFrom}</label>
            <input id="f-from" className="input" type="datetime-local" value={draft.from} onChange={(e) => set("from", e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="f-to">{t.createdBefore}</label>
            <input id="f-to" className="input" type="datetime-local" value={draft.to} onChange={(e) => set("to", e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="f-min">{t.minDuration}</label>
            <input id="f-min" className="input" type="number" min={0} step={1} value={draft.minDurationMs} onChange={(e) => set("minDurationMs", e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="f-error">{t.error}</label>
            <select id="f-error" className="input" value={draft.hasError} onChange={(e) => set("hasError", e.target.value as Draft["hasError"])}>
              <option value="">{t.any}</option>
              <option value="yes">{t.withError}</option>
              <option value="no">{t.withoutErrors}</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor="f-attempts">{c.attempts.filter}</label>
            <select id="f-attempts" className="input" value={draft.attempts} onChange={(e) => set("attempts", e.target.value as Draft["attempts"])}>
              <option value="">{c.attempts.anyRun}</option>
              <option value="moved">{c.attempts.moved}</option>
              <option value="lease_expired">{c.attempts.leaseExpired}</option>
            </select>
          </div>
          <div className="field">
            <label>
              <input type="checkbox" checked={draft.awaitingApproval} onChange={(e) => set("awaitingApproval", e.target.checked)} data-testid="f-awaiting-approval" /> {t.awaitingApproval}
            </label>
          </div>
          <div className={styles.actions}>
            <button className="btn btn-primary" type="submit">
              {t.apply}
            </button>
            <button className="btn" type="button" onClick={() => apply({})}>
              {t.reset}
            </button>
          </div>
        </form>
      </section>

      <section className="card" aria-label={t.list}>
        {runs.error ? (
          <p role="alert" className="error-text">
            {errorText(runs.error)}
          </p>
        ) : null}
        <div className="table-wrap" tabIndex={0}>
          <table className="data" data-testid="runs-table" aria-busy={runs.isFetching}>
            <caption className={styles.caption}>
              {t.caption}
              {runs.isPending ? t.loadingNote : t.shown(rows.length, runs.hasNextPage)}
            </caption>
            <thead>
              <tr>
                <th scope="col">{t.created}</th>
                <th scope="col">{t.status}</th>
                <th scope="col">{t.run}</th>
                <th scope="col">{t.user}</th>
                <th scope="col">{t.thread}</th>
                <th scope="col">{t.protocolRunner}</th>
                <th scope="col" className={styles.num}>
                  {t.duration}
                </th>
                <th scope="col">{t.error}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id} data-testid="run-row" data-run-id={r.runId} data-status={r.status}>
                  <td className={styles.nowrap}>{dates.dateTime(r.createdAt)}</td>
                  <td>
                    <span className={statusPillClass(r.status)} data-testid="run-status">
                      {r.queuePosition !== null ? t.queuedAt(r.queuePosition) : (c.status[r.status] ?? r.status)}
                    </span>
                    {r.attempts > 1 ? (
                      <span className="muted" title={c.attempts.column} data-testid="run-attempts-count">
                        {" "}
                        ×{r.attempts}
                      </span>
                    ) : null}
                  </td>
                  <td className={`${r.prompt?.trim() ? "" : "mono "}${styles.truncate}`}>
                    <Link href={`/admin/runs/${r.id}`} title={t.runTitle(r.runId)} data-testid="run-link">
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
                  <td className={styles.num}>{r.durationMs !== null ? formatDuration(r.durationMs) : (c.status[r.status] ?? r.status)}</td>
                  <td className={styles.truncate} title={r.errorMessage ?? undefined}>
                    {r.errorCode ? <span className="error-text mono">{r.errorCode}</span> : null}
                  </td>
                </tr>
              ))}
              {!runs.isPending && rows.length === 0 ? (
                <tr>
                  <td colSpan={8} className="muted" data-testid="runs-empty">
                    {t.none}
                  </td>
                </tr>
              ) : null}
            </tbody>
          </table>
        </div>
        {runs.hasNextPage ? (
          <button className="btn" type="button" data-testid="runs-load-more" onClick={() => void runs.fetchNextPage()} disabled={runs.isFetchingNextPage}>
            {runs.isFetchingNextPage ? c.loading : c.loadMore}
          </button>
        ) : null}
      </section>
    </>
  );
}
