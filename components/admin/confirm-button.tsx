"use client";
import { useState } from "react";
import { useDictionary } from "../i18n/use-dictionary";

/**
 * A button for an action that cannot be taken back in one click: the first click asks
 * `question` in place, with the action and Cancel; Cancel (or Escape) puts the button back.
 */
export function ConfirmButton({
  label,
  question,
  confirmLabel = label,
  danger = false,
  pending = false,
  onConfirm,
  testId,
}: {
  label: string;
  question: string;
  confirmLabel?: string;
  danger?: boolean;
  pending?: boolean;
  onConfirm: () => void;
  testId?: string;
}) {
  const [asking, setAsking] = useState(false);
  const t = useDictionary().common;
  if (!asking) {
    return (
      <button className={`btn${danger ? " btn-danger" : ""}`} type="button" data-testid={testId} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span
      className="row"
      role="group"
      aria-label={question}
      onKeyDown={(e) => {
        if (e.key === "Escape") setAsking(false);
      }}
    >
      <span>{question}</span>
      <button
        className={`btn${danger ? " btn-danger" : " btn-primary"}`}
        type="button"
        autoFocus
        disabled={pending}
        data-testid={testId ? `${testId}-confirm` : undefined}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button className="btn" type="button" onClick={() => setAsking(false)}>
        {t.cancel}
      </button>
    </span>
  );
}
