"use client";
import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { useDictionary, useRequestErrorText } from "../i18n/use-dictionary";
import { useConsoleCount, useConsoleDates } from "./format";
import styles from "./admin.module.css";

type Subject = "default" | "user" | "api_key";
const SUBJECTS: Subject[] = ["default", "user", "api_key"];

const numberOrNull = (text: string) => (text.trim() === "" ? null : Number(text));

/** Budgets per user, per API key and the default: tokens per day, runs per minute, concurrent runs. */
// Long: one console panel: its list, its form and the state they share.
export function BudgetsPanel() {
  const errorText = useRequestErrorText();
  const dates = useConsoleDates();
  const shown = useConsoleCount();
  const t = useDictionary().console.usage;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const budgets = useQuery(trpc.usage.budgets.queryOptions());
  const users = useQuery(trpc.users.list.queryOptions({ limit: 100 }));
  const keys = useQuery(trpc.apiKeys.list.queryOptions({ limit: 100 }));
  const [subject, setSubject] = useState<Subject>("default");
  const [subjectId, setSubjectId] = useState("");
  const [tokens, setTokens] = useState("");
  const [rpm, setRpm] = useState("");
  const [concurrent, setConcurrent] = useState("");
  const save = useMutation(
    trpc.usage.setBudgets.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.usage.budgets.pathKey() }),
    }),
  );
  const env = budgets.data?.environment;

  return (
    <section className="card" aria-labelledby="budgets-title" data-testid="budgets-panel">
      <h2 id="budgets-title" className={styles.sectionTitle}>
        {t.budgets}
      </h2>
      <p className="muted">{t.budgetsHelp(shown(env?.tokensPerDay ?? null), shown(env?.runsPerMinute ?? null), shown(env?.concurrentRuns ?? null))}</p>
      <form
        className={styles.filters}
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate({
            subject,
            subjectId: subject === "default" ? undefined : subjectId,
            tokensPerDay: numberOrNull(tokens),
            runsPerMinute: numberOrNull(rpm),
            concurrentRuns: numberOrNull(concurrent),
          });
        }}
      >
        <label className="field">
          {t.for}
          <select className="input" value={subject} onChange={(e) => (setSubject(e.target.value as Subject), setSubjectId(""))}>
            {SUBJECTS.map((s) => (
              <option key={s} value={s}>
                {t.subjects[s]}
              </option>
            ))}
          </select>
        </label>
        {subject === "user" && (
          <label className="field">
            {t.user}
            <select className="input" value={subjectId} onChange={(e) => setSubjectId(e.target.value)} required>
              <option value="">{t.chooseUser}</option>
              {(users.data?.items ?? []).map((u) => (
                <option key={u.id} value={u.id}>
                  {u.email}
                </option>
              ))}
            </select>
          </label>
        )}
        {subject === "api_key" && (
          <label className="field">
            {t.apiKey}
            <select className="input" value={subjectId} onChange={(e) => setSubjectId(e.target.value)} required>
              <option value="">{t.chooseKey}</option>
              {(keys.data?.items ?? []).map((k) => (
                <option key={k.id} value={k.id}>
                  {k.name} ({k.prefix}…, {k.user.email})
                </option>
              ))}
            </select>
          </label>
        )}
        <label className="field">
          {t.tokensPerDay}
          <input className="input" type="number" min={1} value={tokens} onChange={(e) => setTokens(e.target.value)} />
        </label>
        <label className="field">
          {t.runsPerMinute}
          <input className="input" type="number" min={1} value={rpm} onChange={(e) => setRpm(e.target.value)} />
        </label>
        <label className="field">
          {t.concurrentRuns}
          <input className="input" type="number" min={1} value={concurrent} onChange={(e) => setConcurrent(e.target.value)} />
        </label>
        <div className={styles.actions}>
          <button className="btn btn-primary" type="submit" disabled={save.isPending}>
            {t.saveBudget}
          </button>
          {save.error && (
            <p role="alert" className="error-text">
              {errorText(save.error)}
            </p>
          )}
        </div>
      </form>
      {/* Scrolls sideways on a phone: focusable, so a keyboard can scroll it too. */}
      <div className="table-wrap" tabIndex={0} role="region" aria-label={t.budgets}>
      <table className="table" data-testid="budgets-table">
        <thead>
          <tr>
            <th scope="col">{t.for}</th>
            <th scope="col" className={styles.num}>{t.tokensPerDay}</th>
            <th scope="col" className={styles.num}>{t.runsPerMinute}</th>
            <th scope="col" className={styles.num}>{t.concurrentRuns}</th>
            <th scope="col">{t.updated}</th>
          </tr>
        </thead>
        <tbody>
          {(budgets.data?.rows ?? []).map((b) => (
            <tr key={`${b.subject}:${b.subjectId}`}>
              <th scope="row">{b.subject === "default" ? t.defaultRow : b.subject === "user" ? t.userRow(b.label) : t.keyRow(b.label)}</th>
              <td className={styles.num}>{shown(b.tokensPerDay)}</td>
              <td className={styles.num}>{shown(b.runsPerMinute)}</td>
              <td className={styles.num}>{shown(b.concurrentRuns)}</td>
              <td>{dates.dateTime(b.updatedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      </div>
    </section>
  );
}
