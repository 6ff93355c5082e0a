"use client";
import { useInfiniteQuery } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { formatDuration, formatTime, prettyJson } from "./format";
import styles from "./admin.module.css";

/** Every persisted event of the run, 500 a page, payloads expandable. */
export function RunTimeline({ runId, eventCount, startedAt }: { runId: string; eventCount: number; startedAt: Date }) {
  const trpc = useTRPC();
  const events = useInfiniteQuery(
    trpc.adminRuns.events.infiniteQueryOptions(
      { id: runId },
      { initialCursor: 0, getNextPageParam: (last) => last.nextCursor ?? undefined },
    ),
  );
  const rows = events.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <section className="card" aria-labelledby="timeline-title" data-testid="run-timeline">
      <h2 id="timeline-title" className={styles.sectionTitle}>
        Event timeline
      </h2>
      {events.error ? (
        <p role="alert" className="error-text">
          {events.error.message}
        </p>
      ) : null}
      <div className="table-wrap">
        <table className="data">
          <caption className={styles.caption}>
            {eventCount} persisted events{rows.length < eventCount ? `, ${rows.length} shown` : ""}
          </caption>
          <thead>
            <tr>
              <th scope="col" className={styles.num}>
                Seq
              </th>
              <th scope="col">Time</th>
              <th scope="col" className={styles.num}>
                +ms
              </th>
              <th scope="col">Type</th>
              <th scope="col">Payload</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => (
              <tr key={e.seq} data-testid="timeline-row" data-type={e.type}>
                <td className={`${styles.num} mono`}>{e.seq}</td>
                <td className={`${styles.nowrap} mono`}>{formatTime(e.createdAt)}</td>
                <td className={styles.num}>{formatDuration(e.createdAt.getTime() - startedAt.getTime())}</td>
                <td className="mono">{e.type}</td>
                <td style={{ minWidth: 280 }}>
                  <details className={styles.details}>
                    <summary className={`mono ${styles.truncate}`} style={{ maxWidth: 520 }}>
                      {e.payload.length > 90 ? `${e.payload.slice(0, 90)}…` : e.payload}
                    </summary>
                    <pre className={styles.json} data-testid="event-payload">
                      {prettyJson(e.payload)}
                    </pre>
                  </details>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {events.hasNextPage ? (
        <button className="btn" type="button" data-testid="timeline-load-more" onClick={() => void events.fetchNextPage()} disabled={events.isFetchingNextPage}>
          {events.isFetchingNextPage ? "Loading…" : "Load 500 more events"}
        </button>
      ) : null}
    </section>
  );
}
