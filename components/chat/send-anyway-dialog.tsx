"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { useDictionary, useRequestErrorText } from "@/components/i18n/use-dictionary";
import { sendDecision } from "./approval-card";
import { useForgetWaiting, useWaitingApprovals, type Waiting } from "./waiting-approvals";

// Sending while a request of this thread waits for the user would supersede it ("Not approved: a
// new message came first"): the chat asks first (docs/approvals.md). The user sends anyway,
// keeps the message in the box, or decides the request here (the message then stays in the box).

/**
 * `confirm(proceed)` runs `proceed` at once when nothing waits in the thread, else after the user
 * chose "Send anyway"; `dialog` is the question to render.
 */
export function useSendAnyway(opts: { threadId: string; live: readonly Waiting[]; decide: (post: () => Promise<string | null>) => Promise<boolean> }) {
  const waiting = useWaitingApprovals(opts.threadId, opts.live);
  const forget = useForgetWaiting();
  const [held, setHeld] = useState<{ proceed: () => void } | null>(null);
  const confirm = useCallback(
    (proceed: () => void) => {
      if (waiting.length === 0) proceed();
      else setHeld({ proceed });
    },
    [waiting.length],
  );
  const dialog =
    held && waiting.length > 0 ? (
      <SendAnywayDialog
        waiting={waiting[0]!}
        more={waiting.length - 1}
        decide={opts.decide}
        onSend={() => {
          setHeld(null);
          // Sending supersedes them: they wait no more.
          for (const item of waiting) forget(item.id);
          held.proceed();
        }}
        onClose={() => setHeld(null)}
      />
    ) : null;
  return { confirm, dialog };
}

// Long: one dialog: its question, the decision buttons and the send/cancel pair share its state.
function SendAnywayDialog({
  waiting,
  more,
  decide,
  onSend,
  onClose,
}: {
  waiting: Waiting;
  more: number;
  decide: (post: () => Promise<string | null>) => Promise<boolean>;
  onSend: () => void;
  onClose: () => void;
}) {
  const t = useDictionary();
  const errorText = useRequestErrorText();
  const forget = useForgetWaiting();
  const ref = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    // Cancel is the safe choice: it takes focus (showModal would pick the first button).
    cancel.current?.focus();
    return () => dialog?.close();
  }, []);

  const decideHere = async (approve: boolean) => {
    setBusy(true);
    setError(null);
    try {
      await decide(async () => {
        const answer = await sendDecision(waiting.id, { approve }, t.approvals.notRecorded);
        forget(waiting.id);
        return answer.task?.runId ?? null;
      });
      onClose();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog
      ref={ref}
      className="chat-dialog"
      aria-labelledby="send-anyway-title"
      aria-describedby="send-anyway-text"
      data-testid="send-anyway-dialog"
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <h2 id="send-anyway-title" className="chat-dialog-title">
        {t.sendAnyway.title}
      </h2>
      <p id="send-anyway-text">{t.sendAnyway.text}</p>
      <p className="chat-dialog-question" data-testid="send-anyway-question">
        {waiting.question}
      </p>
      {more > 0 ? <p className="muted">{t.sendAnyway.more(more)}</p> : null}
      <div className="chat-dialog-decide" role="group" aria-label={t.sendAnyway.decideLabel}>
        <button type="button" className="btn" disabled={busy} onClick={() => void decideHere(true)} data-testid="send-anyway-approve">
          {t.approvals.approve}
        </button>
        <button type="button" className="btn" disabled={busy} onClick={() => void decideHere(false)} data-testid="send-anyway-deny">
          {t.approvals.deny}
        </button>
      </div>
      {error ? (
        <p role="alert" className="error-text">
          {error}
        </p>
      ) : null}
      <div className="chat-dialog-actions">
        <button type="button" className="btn" disabled={busy} onClick={onClose} data-testid="send-anyway-cancel" ref={cancel}>
          {t.common.cancel}
        </button>
        <button type="button" className="btn btn-primary" disabled={busy} onClick={onSend} data-testid="send-anyway-send">
          {t.sendAnyway.send}
        </button>
      </div>
    </dialog>
  );
}
