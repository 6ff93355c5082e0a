"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { useDictionary, useRequestErrorText } from "../i18n/use-dictionary";
import { useConsoleDates } from "./format";

// Every user's schedules (docs/schedules.md): when each runs, its next and last run, how many it
// started, and buttons to pause, resume or delete it.

export function SchedulesPanel() {
  const t = useDictionary().console.schedules;
  const dates = useConsoleDates();
  const errorText = useRequestErrorText();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const listing = useQuery(trpc.schedules.all.queryOptions());
  const refresh = { onSettled: () => void queryClient.invalidateQueries({ queryKey: trpc.schedules.all.queryKey() }) };
  const setPaused = useMutation(trpc.schedules.adminSetPaused.mutationOptions(refresh));
  const remove = useMutation(trpc.schedules.adminRemove.mutationOptions(refresh));
  const failure = listing.error ?? setPaused.error ?? remove.error;
  const busy = setPaused.isPending || remove.isPending;
  return (
    <section className="card" data-testid="schedules-panel">
      <p className="muted">{t.help}</p>
      {failure && (
        <p role="alert" className="error-text">
          {errorText(failure)}
        </p>
      )}
      {listing.data?.length === 0 && <p className="muted">{t.none}</p>}
      {listing.data && listing.data.length > 0 && (
        <div className="table-wrap" tabIndex={0}>
          <table className="data">
            <thead>
              <tr>
                <th>{t.owner}</th>
                <th>{t.when}</th>
                <th>{t.message}</th>
                <th>{t.next}</th>
                <th>{t.last}</th>
                <th>{t.runs}</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {listing.data.map((s) => (
                <tr key={s.id} data-testid="admin-schedule">
                  <td className="mono" title={s.id}>
                    {s.userId}
                  </td>
                  <td className="mono">{s.cron ? `${s.cron} (${s.timeZone})` : t.once(dates.dateTime(s.runAt))}</td>
                  <td>{s.name ?? s.message}</td>
                  <td>{s.paused ? <span className="pill">{t.paused}</span> : dates.dateTime(s.nextRunAt)}</td>
                  <td className="muted" title={s.lastError ?? undefined}>
                    {dates.dateTime(s.lastRunAt)}
                    {s.lastError ? ` · ${s.lastError}` : ""}
                  </td>
                  <td>{s.runCount}</td>
                  <td>
                    {(s.paused || s.nextRunAt) && (
                      <button className="btn" type="button" disabled={busy} onClick={() => setPaused.mutate({ id: s.id, paused: !s.paused })}>
                        {s.paused ? t.resume : t.pause}
                      </button>
                    )}{" "}
                    <button className="btn" type="button" disabled={busy} onClick={() => remove.mutate({ id: s.id })}>
                      {t.remove}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
