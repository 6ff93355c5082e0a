"use client";

import { useId } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc-provider";
import { formatDateTime } from "@/components/i18n/format";
import { useDictionary, useI18n, useRequestErrorText } from "@/components/i18n/use-dictionary";

// The chat settings' schedules section (docs/schedules.md): the user's scheduled runs, when each
// runs next, and buttons to pause, resume or delete one. Making one is the chat's (“remind me…”).

export function SchedulesSection() {
  const t = useDictionary().settings.schedules;
  const { locale, timeZone } = useI18n();
  const errorText = useRequestErrorText();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const title = useId();
  const list = useQuery(trpc.schedules.mine.queryOptions());
  const refresh = { onSettled: () => void queryClient.invalidateQueries({ queryKey: trpc.schedules.mine.queryKey() }) };
  const setPaused = useMutation(trpc.schedules.setPaused.mutationOptions(refresh));
  const remove = useMutation(trpc.schedules.remove.mutationOptions(refresh));
  const busy = setPaused.isPending || remove.isPending;
  const at = (iso: string | null) => formatDateTime(iso, locale, timeZone);
  const failure = list.error ?? setPaused.error ?? remove.error;

  return (
    <section aria-labelledby={title} data-testid="schedules-section">
      <h2 id={title}>{t.title}</h2>
      <p className="muted">{t.help}</p>
      {list.data?.length === 0 && <p className="muted">{t.none}</p>}
      {list.data && list.data.length > 0 && (
        <ul className="plain-list">
          {list.data.map((s) => {
            const label = s.name ?? s.message;
            const when = s.cron ? `${s.cron} (${s.timeZone})` : t.once(at(s.runAt));
            return (
              <li key={s.id} className="field" data-testid="schedule">
                <strong>{label}</strong> <span className="muted">{when}</span>
                <div className="muted" role="status">
                  {s.paused ? t.paused : s.nextRunAt ? t.next(at(s.nextRunAt)) : t.done}
                </div>
                {s.lastError && <div className="error-text">{t.lastError(s.lastError)}</div>}
                <div className="row">
                  {(s.paused || s.nextRunAt) && (
                    <button className="btn" type="button" disabled={busy} onClick={() => setPaused.mutate({ id: s.id, paused: !s.paused })}>
                      {s.paused ? t.resume : t.pause}
                    </button>
                  )}
                  <button className="btn" type="button" disabled={busy} aria-label={t.removeLabel(label)} onClick={() => remove.mutate({ id: s.id })}>
                    {t.remove}
                  </button>
                </div>
              </li>
            );
          })}
        </ul>
      )}
      {failure && (
        <p className="chat-run-error" role="alert">
          {errorText(failure) || t.failed}
        </p>
      )}
    </section>
  );
}
