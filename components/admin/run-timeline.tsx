"use client";
import { useInfiniteQuery } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { useDictionary } from "../i18n/use-dictionary";
import { useConsoleDates, formatDuration, prettyJson } from "./format";
import { groupTimeline } from "./timeline-groups";
import styles from "./admin.module.css";

const KIND_LABELS: Record<string, string> = { TEXT_MESSAGE: "Message", TOOL_CALL: "Tool call" };

/** Every persisted event of the run, 500 a page: messages and tool calls grouped, raw events expandable. */
// Long: one timeline: its paging, its filter and the events it shows share one state.
export function RunTimeline({ runId, eventCount, startedAt }: { runId: string; eventCount: number; startedAt: Date }) {
  const dates = useConsoleDates();
  const c = useDictionary().console;
  const t = c.run;
  const trpc = useTRPC();
  const events = useInfiniteQuery(
    trpc.adminRuns.events.infiniteQueryOptions(
      { id: runId },
      { initialCursor: 0, getNextPageParam: (last) => last.nextCursor ?? undefined },
    ),
  );
  const rows = events.data?.pages.flatMap((p) => p.items) ?? [];
  const groups = groupTimeline(rows);
  return (
    <section className="card" aria-labelledby="timeline-title" data-testid="run-timeline">
      <h2 id="timeline-title" className={styles.sectionTitle}>
        {t.timeline}
      </h2>
      {events.error ? (
        <p role="alert" className="error-text">
          {t.eventsFailed}
        </p>
      ) : null}
      <div className="table-wrap" tabIndex={0}>
        <table className="data">
          <caption className={styles.caption}>
            {t.eventsCaption(eventCount, rows.length < eventCount ? rows.length : null)}
          </caption>
          <thead>
            <tr>
              <th scope="col" className={styles.num}>
                {t.seq}
              </th>
              <th scope="col">{t.time}</th>
              <th scope="col" className={styles.num}>
                +ms
              </th>
              <th scope="col">{t.type}</th>
              <th scope="col">{t.contentAndRaw}</th>
            </tr>
          </thead>
          <tbody>
            {groups.map((g) => {
              const first = g.events[0]!;
              const last = g.events.at(-1)!;
              return (
                <tr key={g.key} data-testid="timeline-row" data-type={g.kind} data-events={g.events.length}>
                  <td className={`${styles.num} mono`}>{g.events.length > 1 ? `${first.seq}–${last.seq}` : first.seq}</td>
                  <td className={`${styles.nowrap} mono`}>{dates.time(first.createdAt)}</td>
                  <td className={styles.num}>{formatDuration(first.createdAt.getTime() - startedAt.getTime())}</td>
                  <td className="mono">
                    {KIND_LABELS[g.kind] ?? g.kind}
                    {g.events.length > 1 ? <div className="muted">{t.events(g.events.length)}</div> : null}
                  </td>
                  <td style={{ minWidth: 280 }}>
                    <details className={styles.details}>
                      <summary className={styles.truncate} style={{ maxWidth: 520 }}>
                        {g.summary || "—"}
                      </summary>
                      {g.events.map((e) => (
                        <div key={e.seq}>
                          {g.events.length > 1 ? (
                            <div className="mono muted">
                              #{e.seq} {e.type}
                            </div>
                          ) : null}
                          <pre className={styles.json} data-testid="event-payload" tabIndex={0}>
                            {prettyJson(e.payload)}
                          </pre>
                        </div>
                      ))}
                    </details>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {events.hasNextPage ? (
        <button className="btn" type="button" data-testid="timeline-load-more" onClick={() => void events.fetchNextPage()} disabled={events.isFetchingNextPage}>
          {events.isFetchingNextPage ? c.loading : t.moreEvents}
        </button>
      ) : null}
    </section>
  );
}
