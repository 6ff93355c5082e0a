"use client";

import { useEffect, useRef } from "react";
import { useDictionary } from "@/components/i18n/use-dictionary";
import { labelOf, planOf, restOf, type PlanStep, type ThreadState } from "./thread-state";
import styles from "./state-panel.module.css";

// The thread's shared state beside the chat (docs/chat-and-console.md, "Plan and state"): the
// agent's plan as steps with their progress, and the rest of the state as keys and values a
// person reads. A sheet from the bottom on a phone, where Escape or the backdrop closes it.

export const STATE_PANEL_ID = "chat-state-panel";
export const STATE_TOGGLE_ID = "chat-state-toggle";
const SHEET_QUERY = "(max-width: 760px)";
const MAX_DEPTH = 6;

export function planProgress(steps: PlanStep[]): { done: number; total: number } {
  return { done: steps.filter((s) => s.status === "done").length, total: steps.length };
}

/** The button that shows or hides the panel, saying how far the plan is. */
export function StatePanelToggle({ state, open, onToggle }: { state: ThreadState; open: boolean; onToggle: () => void }) {
  const t = useDictionary().statePanel;
  const steps = planOf(state);
  const progress = steps && steps.length > 0 ? planProgress(steps) : null;
  return (
    <div className={styles.bar}>
      <button
        id={STATE_TOGGLE_ID}
        type="button"
        className={`btn ${styles.toggle}`}
        aria-expanded={open}
        aria-controls={STATE_PANEL_ID}
        title={open ? t.hide : t.show}
        data-testid="state-panel-toggle"
        onClick={onToggle}
      >
        {steps ? t.plan : t.state}
        {progress ? <span className="muted"> · {t.progress(progress.done, progress.total)}</span> : null}
      </button>
    </div>
  );
}

export function StatePanel({ state, onClose }: { state: ThreadState; onClose: () => void }) {
  const t = useDictionary().statePanel;
  const heading = useRef<HTMLHeadingElement>(null);
  const steps = planOf(state);
  const rest = restOf(state);

  useEffect(() => {
    // As a sheet it takes focus; beside the chat the reader stays where they were.
    if (window.matchMedia(SHEET_QUERY).matches) heading.current?.focus();
  }, []);

  const close = () => {
    onClose();
    document.getElementById(STATE_TOGGLE_ID)?.focus();
  };

  return (
    <>
      <div className={styles.backdrop} aria-hidden="true" onClick={close} />
      <aside
        id={STATE_PANEL_ID}
        className={styles.panel}
        aria-labelledby="chat-state-title"
        data-testid="state-panel"
        onKeyDown={(e) => {
          if (e.key === "Escape") close();
        }}
      >
        <div className={styles.head}>
          <h2 id="chat-state-title" className={styles.title} tabIndex={-1} ref={heading}>
            {t.title}
          </h2>
          <button type="button" className="btn" onClick={close} data-testid="state-panel-close">
            {t.close}
          </button>
        </div>
        {steps ? <PlanView steps={steps} /> : null}
        {Object.keys(rest).length > 0 ? (
          <section className={styles.section} aria-labelledby="chat-state-rest" data-testid="state-tree">
            <h3 id="chat-state-rest" className={styles.sectionTitle}>
              {steps ? t.otherState : t.state}
            </h3>
            <Tree value={rest} depth={0} />
          </section>
        ) : null}
      </aside>
    </>
  );
}

function PlanView({ steps }: { steps: PlanStep[] }) {
  const t = useDictionary().statePanel;
  const { done, total } = planProgress(steps);
  const label = t.progress(done, total);
  return (
    <section className={styles.section} aria-labelledby="chat-state-plan" data-testid="state-plan">
      <h3 id="chat-state-plan" className={styles.sectionTitle}>
        {t.plan}
      </h3>
      {total === 0 ? (
        <p className={styles.empty}>{t.noSteps}</p>
      ) : (
        <>
          <div className={styles.progress}>
            <span data-testid="state-plan-progress" aria-live="polite">
              {label}
            </span>
            <div className={styles.meter} role="progressbar" aria-label={t.plan} aria-valuemin={0} aria-valuemax={total} aria-valuenow={done} aria-valuetext={label}>
              <div className={styles.meterFill} style={{ width: `${(done / total) * 100}%` }} />
            </div>
          </div>
          <ol className={styles.steps}>
            {steps.map((step, i) => (
              <li key={i} className={styles.step} data-status={step.status} data-testid="state-plan-step">
                <span className={styles.mark} aria-hidden="true" />
                <span className={styles.text}>
                  {step.description || t.untitledStep(i + 1)}
                  <span className="sr-only"> ({t.status[step.status]})</span>
                </span>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

/** A JSON value as nested lists of labels and values: never raw JSON. */
function Tree({ value, depth }: { value: unknown; depth: number }) {
  const t = useDictionary().statePanel;
  if (value === null || value === undefined) return <span className={styles.empty}>{t.none}</span>;
  if (typeof value === "boolean") return <>{value ? t.yes : t.no}</>;
  if (typeof value !== "object") return <>{String(value)}</>;
  if (depth >= MAX_DEPTH) return <span className={styles.empty}>…</span>;
  if (Array.isArray(value)) {
    if (value.length === 0) return <span className={styles.empty}>{t.none}</span>;
    return (
      <ul className={styles.list}>
        {value.map((item, i) => (
          <li key={i}>
            <Tree value={item} depth={depth + 1} />
          </li>
        ))}
      </ul>
    );
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return <span className={styles.empty}>{t.none}</span>;
  return (
    <dl className={styles.tree}>
      {entries.map(([key, v]) => (
        <div key={key} style={{ display: "contents" }}>
          <dt className={styles.key}>{labelOf(key)}</dt>
          <dd className={styles.value}>
            <Tree value={v} depth={depth + 1} />
          </dd>
        </div>
      ))}
    </dl>
  );
}
