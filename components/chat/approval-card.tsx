"use client";

import { useId, useState } from "react";
import { useRouter } from "next/navigation";
import { UiSchemaView } from "@/components/ui-schema/ui-schema-view";
import { useDictionary, useRequestErrorText } from "@/components/i18n/use-dictionary";
import { RequestError } from "@/components/i18n/request-error";
import { useMessageActions } from "./message-actions";
import { useForgetWaiting } from "./waiting-approvals";
import styles from "./approval-card.module.css";

// A write the agent asked approval for (docs/approvals.md): its card (the same UiSchema every
// surface shows) and, while it waits, Approve / Edit / Deny as real buttons and form fields, so
// the keyboard reaches everything. The decision goes to POST /api/v1/agent/interrupts/{id}; the
// open chat then follows the run that continues (elsewhere the page is refreshed to show it).

export type ApprovalInfo = {
  id: string;
  status: "pending" | "approved" | "denied" | "expired" | "superseded";
  action: string;
  input: unknown;
  expiresAt: string;
  actions: string[];
};

type Mode = "idle" | "editing" | "denying";

/** The card's question (its title node), which names the choices for a screen reader too. */
export function questionOf(uiSchema: unknown): string | null {
  const children = (uiSchema as { root?: { children?: { type?: string; role?: string; content?: unknown }[] } } | null)?.root?.children ?? [];
  const title = children.find((n) => n.type === "text" && n.role === "title");
  return typeof title?.content === "string" ? title.content : null;
}

type Answer = { task: { runId: string } | null; error?: { message: string } };

/** Decides a request (POST /api/v1/agent/interrupts/{id}); the answer names the run that continues, if any. */
export async function sendDecision(id: string, body: { approve: boolean; reason?: string; input?: unknown }, notRecorded: (status: number) => string): Promise<Answer> {
  const res = await fetch(`/api/v1/agent/interrupts/${encodeURIComponent(id)}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(body),
  });
  const answer = (await res.json().catch(() => ({}))) as Answer;
  if (!res.ok) throw new RequestError(res.status, answer.error?.message ?? notRecorded(res.status));
  return answer;
}

// Long: one card: its sentence, its editable fields and its decision buttons share the request's state.
export function ApprovalCard({ approval, uiSchema }: { approval: ApprovalInfo; uiSchema: unknown }) {
  const t = useDictionary().approvals;
  const common = useDictionary().common;
  const errorText = useRequestErrorText();
  const router = useRouter();
  const chat = useMessageActions();
  const forget = useForgetWaiting();
  const ids = useId();
  const [mode, setMode] = useState<Mode>("idle");
  const [draft, setDraft] = useState(() => JSON.stringify(approval.input ?? {}, null, 2));
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [decided, setDecided] = useState<"approved" | "denied" | null>(null);
  const expired = approval.status === "expired" || (approval.status === "pending" && Date.parse(approval.expiresAt) <= Date.now());
  const open = approval.status === "pending" && !expired && decided === null;

  const decide = async (body: { approve: boolean; reason?: string; input?: unknown }) => {
    setBusy(true);
    setError(null);
    const post = async () => {
      const answer = await sendDecision(approval.id, body, t.notRecorded);
      forget(approval.id);
      setDecided(body.approve ? "approved" : "denied");
      setMode("idle");
      return answer.task?.runId ?? null;
    };
    try {
      const followed = chat ? await chat.decide(post) : (await post(), false);
      if (!followed) router.refresh();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const approveEdited = () => {
    let input: unknown;
    try {
      input = JSON.parse(draft);
    } catch {
      setError(t.invalidJson);
      return;
    }
    void decide({ approve: true, input });
  };

  return (
    <div className="chat-tool chat-approval" data-testid="approval-card" data-status={decided ?? expired ? "expired" : approval.status} data-approval-id={approval.id}>
      <UiSchemaView schema={uiSchema} />
      {expired ? (
        <p className="muted" data-testid="approval-expired">
          {t.expired}
        </p>
      ) : null}
      {decided ? (
        <p className="muted" role="status" data-testid="approval-decided">
          {decided === "approved" ? t.approved : t.denied}
        </p>
      ) : null}
      {open && mode === "idle" ? (
        <div className={styles.actions} role="group" aria-label={questionOf(uiSchema) ?? t.choices}>
          <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void decide({ approve: true })} data-testid="approval-approve">
            {t.approve}
          </button>
          {/* An AG-UI agent's interrupt is answered, never edited: its actions leave "edit" out. */}
          {approval.actions.includes("edit") ? (
            <button type="button" className="btn" disabled={busy} onClick={() => setMode("editing")} data-testid="approval-edit">
              {t.edit}
            </button>
          ) : null}
          <button type="button" className="btn btn-danger" disabled={busy} onClick={() => setMode("denying")} data-testid="approval-deny">
            {t.deny}
          </button>
        </div>
      ) : null}
      {open && mode === "editing" ? (
        <form
          className={`field ${styles.form}`}
          onSubmit={(e) => {
            e.preventDefault();
            approveEdited();
          }}
        >
          <label htmlFor={`${ids}-input`}>{t.inputLabel}</label>
          <textarea id={`${ids}-input`} className="input" rows={8} value={draft} onChange={(e) => setDraft(e.target.value)} data-testid="approval-input" autoFocus />
          <div className={styles.actions}>
            <button type="submit" className="btn btn-primary" disabled={busy} data-testid="approval-save">
              {t.approveWithChanges}
            </button>
            <button type="button" className="btn" disabled={busy} onClick={() => setMode("idle")}>
              {common.cancel}
            </button>
          </div>
        </form>
      ) : null}
      {open && mode === "denying" ? (
        <form
          className={`field ${styles.form}`}
          onSubmit={(e) => {
            e.preventDefault();
            void decide({ approve: false, ...(reason.trim() ? { reason: reason.trim() } : {}) });
          }}
        >
          <label htmlFor={`${ids}-reason`}>{t.reasonLabel}</label>
          <input id={`${ids}-reason`} className="input" value={reason} maxLength={1000} onChange={(e) => setReason(e.target.value)} data-testid="approval-reason" autoFocus />
          <div className={styles.actions}>
            <button type="submit" className="btn btn-danger" disabled={busy} data-testid="approval-confirm-deny">
              {t.deny}
            </button>
            <button type="button" className="btn" disabled={busy} onClick={() => setMode("idle")}>
              {common.cancel}
            </button>
          </div>
        </form>
      ) : null}
      {error ? (
        <p className="chat-run-error" role="alert" data-testid="approval-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
