"use client";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { useI18n, useRequestErrorText } from "@/components/i18n/use-dictionary";
import { dayName, formatNumber } from "@/components/i18n/format";
import type { Locale } from "@/components/i18n/locales";
import type { Dictionary } from "@/components/i18n/dictionaries";

type Words = Dictionary["settings"]["usage"];

function Budget({ label, used, max, left, unit, testId, t, locale }: { label: string; used: number; max: number | null; left: number | null; unit: string; testId: string; t: Words; locale: Locale }) {
  const n = (value: number) => formatNumber(value, locale);
  return (
    <div data-testid={testId}>
      <dt>{label}</dt>
      <dd>
        {max === null ? (
          t.noLimit(n(used), unit)
        ) : (
          <>
            {t.usedOf(n(used), n(max), unit)} · <strong>{t.left(left === null ? "—" : n(left))}</strong>
            <meter min={0} max={max} value={Math.min(used, max)} style={{ display: "block", width: "100%" }} aria-label={t.meter(label, n(used), n(max))} />
          </>
        )}
      </dd>
    </div>
  );
}

/** The signed-in user's own usage (the last two weeks) and what is left of their budgets, for the chat's settings.
 * Budgets count UTC days, so the table's days are named in UTC too ("Today" is the budget's day). */
export function UsageSection() {
  const errorText = useRequestErrorText();
  const { t: dictionary, locale } = useI18n();
  const t = dictionary.settings.usage;
  const shown = (value: number | null) => (value === null ? "—" : formatNumber(value, locale));
  const trpc = useTRPC();
  const mine = useQuery(trpc.usage.mine.queryOptions());
  const data = mine.data;
  return (
    <section aria-labelledby="usage-section-title" data-testid="usage-section">
      <h2 id="usage-section-title">{t.title}</h2>
      {mine.error && (
        <p role="alert" className="error-text">
          {errorText(mine.error)}
        </p>
      )}
      {data && (
        <>
          <dl>
            <Budget testId="usage-tokens-today" label={t.tokensToday} used={data.today.tokensToday} max={data.budgets.tokensPerDay} left={data.remaining.tokensToday} unit={t.tokens} t={t} locale={locale} />
            <Budget testId="usage-runs-minute" label={t.runsLastMinute} used={data.today.runsLastMinute} max={data.budgets.runsPerMinute} left={data.remaining.runsThisMinute} unit={t.runs} t={t} locale={locale} />
            <Budget testId="usage-runs-now" label={t.runsInProgress} used={data.today.runsInProgress} max={data.budgets.concurrentRuns} left={data.remaining.concurrentRuns} unit={t.runs} t={t} locale={locale} />
          </dl>
          <table className="table">
            <caption style={{ textAlign: "left" }}>{t.lastDays}</caption>
            <thead>
              <tr>
                <th scope="col">{t.day}</th>
                <th scope="col">{t.runsColumn}</th>
                <th scope="col">{t.tokensColumn}</th>
              </tr>
            </thead>
            <tbody>
              {data.days.map((d) => (
                <tr key={d.day}>
                  <th scope="row">{dayName(d.day, { locale, timeZone: "UTC", words: dictionary.common })}</th>
                  <td>{shown(d.runs)}</td>
                  <td>{shown(d.totalTokens)}</td>
                </tr>
              ))}
              {data.days.length === 0 && (
                <tr>
                  <td colSpan={3} className="muted">
                    {t.noRuns}
                  </td>
                </tr>
              )}
            </tbody>
          </table>
          {data.models.length > 0 && <p className="muted">{t.byModel(data.models.map((m) => t.modelLine(m.model, shown(m.totalTokens), shown(m.runs))).join(" · "))}</p>}
        </>
      )}
    </section>
  );
}
