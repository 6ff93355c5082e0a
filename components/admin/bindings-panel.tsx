"use client";
import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../trpc-provider";
import { BindingSkills } from "./binding-skills";
import { useDictionary, useRequestErrorText } from "../i18n/use-dictionary";
import { useConsoleDates } from "./format";
import { JsonBlock } from "./json-block";
import styles from "./admin.module.css";

type Scope = "default" | "user" | "thread";
// The busy-thread strategies a binding may default to; "" is none of its own (reject).
const STRATEGIES = ["reject", "enqueue", "interrupt"] as const;
type Strategy = (typeof STRATEGIES)[number];

function parseJsonObject(text: string, label: string): Record<string, unknown> | string {
  if (!text.trim()) return {};
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : `${label} must be a JSON object`;
  } catch {
    return `${label} is not valid JSON`;
  }
}

// Long: one form: its fields, their checks and the binding they make share one state.
function CreateBindingForm({ runnerIds, onDone }: { runnerIds: string[]; onDone: () => void }) {
  const errorText = useRequestErrorText();
  const trpc = useTRPC();
  const t = useDictionary().console.runners;
  const [runnerId, setRunnerId] = useState("");
  const [scope, setScope] = useState<Scope>("default");
  const [target, setTarget] = useState("");
  const [config, setConfig] = useState("");
  const [policy, setPolicy] = useState("");
  const [strategy, setStrategy] = useState<Strategy | "">("");
  const [autoApprove, setAutoApprove] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const bind = useMutation(
    trpc.runners.bind.mutationOptions({
      onSuccess: () => {
        setTarget("");
        setConfig("");
        setPolicy("");
        setStrategy("");
        setAutoApprove(false);
        onDone();
      },
    }),
  );
  return (
    <form
      data-testid="binding-form"
      className={styles.stackForm}
      onSubmit={(e) => {
        e.preventDefault();
        const c = parseJsonObject(config, "Config");
        const p = parseJsonObject(policy, "Policy");
        if (typeof c === "string" || typeof p === "string") return setProblem(typeof c === "string" ? c : (p as string));
        setProblem(null);
        bind.mutate({
          runnerId,
          email: scope === "user" ? target : undefined,
          threadId: scope === "thread" ? target : undefined,
          config: c,
          policy: p,
          multitaskStrategy: strategy || null,
          autoApprove,
        });
      }}
    >
      <div className="row">
        <label htmlFor="binding-runner">{t.runner}</label>
        <select id="binding-runner" className="input" style={{ maxWidth: 360 }} value={runnerId} onChange={(e) => setRunnerId(e.target.value)} required>
          <option value="">{t.chooseRunner}</option>
          {runnerIds.map((id) => (
            <option key={id} value={id}>
              {id}
            </option>
          ))}
        </select>
        <label htmlFor="binding-scope">{t.for}</label>
        <select id="binding-scope" className="input" style={{ maxWidth: 160 }} value={scope} onChange={(e) => setScope(e.target.value as Scope)}>
          <option value="default">{t.everyone}</option>
          <option value="user">{t.oneUser}</option>
          <option value="thread">{t.oneThread}</option>
        </select>
        {scope !== "default" && (
          <>
            <label className="sr-only" htmlFor="binding-target">
              {scope === "user" ? t.userEmail : t.threadId}
            </label>
            <input
              id="binding-target"
              className="input"
              style={{ maxWidth: 300 }}
              placeholder={scope === "user" ? "user@example.com" : t.threadPlaceholder}
              value={target}
              onChange={(e) => setTarget(e.target.value)}
              required
            />
          </>
        )}
      </div>
      <label htmlFor="binding-config">{t.config}</label>
      <textarea id="binding-config" className="input mono" rows={3} value={config} onChange={(e) => setConfig(e.target.value)} placeholder="{}" />
      <label htmlFor="binding-policy">{t.policy}</label>
      <textarea
        id="binding-policy"
        className="input mono"
        rows={3}
        value={policy}
        onChange={(e) => setPolicy(e.target.value)}
        placeholder='{"tools": {"operations": ["detail"]}, "rate_per_minute": 120}'
      />
      <div className="row">
        <label htmlFor="binding-strategy" title={t.busyThreadHelp}>
          {t.busyThread}
        </label>
        <StrategySelect id="binding-strategy" value={strategy} onChange={setStrategy} />
        <label>
          <input type="checkbox" checked={autoApprove} onChange={(e) => setAutoApprove(e.target.checked)} /> {t.autoApprove}
        </label>
      </div>
      <div className="row">
        <button className="btn btn-primary" type="submit" disabled={!runnerId || bind.isPending}>
          {bind.isPending ? t.binding : t.createBinding}
        </button>
      </div>
      {(problem ?? bind.error) && (
        <p role="alert" className="error-text">
          {problem ?? errorText(bind.error)}
        </p>
      )}
    </form>
  );
}

function StrategySelect({ id, value, onChange, label }: { id: string; value: Strategy | ""; onChange: (value: Strategy | "") => void; label?: string }) {
  const t = useDictionary().console.runners;
  return (
    <select id={id} className="input" style={{ maxWidth: 220 }} value={value} aria-label={label} onChange={(e) => onChange(e.target.value as Strategy | "")}>
      <option value="">{t.strategies.reject}</option>
      {STRATEGIES.filter((s) => s !== "reject").map((s) => (
        <option key={s} value={s}>
          {t.strategies[s]}
        </option>
      ))}
    </select>
  );
}

// Long: one console panel: its list, its form and the state they share.
export function BindingsPanel() {
  const dates = useConsoleDates();
  const t = useDictionary().console.runners;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const overview = useQuery(trpc.runners.overview.queryOptions());
  const invalidate = () => void queryClient.invalidateQueries({ queryKey: trpc.runners.overview.queryKey() });
  const update = useMutation(trpc.runners.updateBinding.mutationOptions({ onSuccess: invalidate }));
  const remove = useMutation(trpc.runners.removeBinding.mutationOptions({ onSuccess: invalidate }));
  const data = overview.data;
  return (
    <section className="card" aria-labelledby="bindings-title" data-testid="bindings-panel">
      <h2 id="bindings-title" className={styles.sectionTitle}>
        {t.bindings}
      </h2>
      <p className="muted">{t.bindingsHelp}</p>
      {data && <CreateBindingForm runnerIds={data.runners.filter((r) => r.available).map((r) => r.id)} onDone={invalidate} />}
      {data && data.bindings.length === 0 && <p className="muted">{t.noBindings}</p>}
      {data && data.bindings.length > 0 && (
        <div className="table-wrap" tabIndex={0}>
        <table className="data" data-testid="bindings-table">
          <thead>
            <tr>
              <th>{t.runner}</th>
              <th>{t.for}</th>
              <th>{t.configAndPolicy}</th>
              <th>{t.skills}</th>
              <th>{t.busyThread}</th>
              <th>{t.created}</th>
              <th>{t.state}</th>
            </tr>
          </thead>
          <tbody>
            {data.bindings.map((b) => (
              <tr key={b.id} data-testid="binding-row">
                <td className="mono">{b.runnerId}</td>
                <td>{b.scope === "default" ? t.everyone : b.scope === "user" ? b.userEmail : <span className="mono">{t.thread(b.threadId)}</span>}</td>
                <td>
                  <JsonBlock value={{ config: b.config, policy: b.policy, event_types: b.eventTypes }} summary={t.show} />
                </td>
                <td>
                  <BindingSkills bindingId={b.id} />
                </td>
                <td>
                  <StrategySelect
                    id={`binding-strategy-${b.id}`}
                    label={t.busyThread}
                    value={b.multitaskStrategy === "reject" ? "" : (b.multitaskStrategy ?? "")}
                    onChange={(value) => update.mutate({ id: b.id, multitaskStrategy: value || null })}
                  />
                </td>
                <td>{dates.dateTime(b.createdAt)}</td>
                <td>
                  <div className="row">
                    <button className="btn" type="button" onClick={() => update.mutate({ id: b.id, enabled: !b.enabled })} aria-pressed={b.enabled}>
                      {b.enabled ? t.enabled : t.disabled}
                    </button>
                    <button
                      className="btn"
                      type="button"
                      data-testid="binding-auto-approve"
                      title={t.autoApprove}
                      onClick={() => update.mutate({ id: b.id, autoApprove: !b.autoApprove })}
                      aria-pressed={b.autoApprove}
                    >
                      {b.autoApprove ? t.autoApproveOn : t.autoApproveOff}
                    </button>
                    <button className="btn" type="button" onClick={() => remove.mutate({ id: b.id })}>
                      {t.delete}
                    </button>
                  </div>
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
