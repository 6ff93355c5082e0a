"use client";

import { useEffect, useState } from "react";
import { useDictionary } from "@/components/i18n/use-dictionary";
import { CheckIcon, CopyIcon } from "./icons";

/** Copies `text` to the clipboard and says so for a moment, also to screen readers. */
export function CopyButton({ text, label, testId = "copy" }: { text: string; label: string; testId?: string }) {
  const t = useDictionary();
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");

  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), 2000);
    return () => clearTimeout(timer);
  }, [state]);

  return (
    <button
      type="button"
      className="chat-mini-btn"
      data-testid={testId}
      aria-label={label}
      title={label}
      onClick={() =>
        navigator.clipboard.writeText(text).then(
          () => setState("copied"),
          () => setState("failed"),
        )
      }
    >
      {state === "copied" ? <CheckIcon size={14} /> : <CopyIcon size={14} />}
      <span aria-live="polite" className={state === "idle" ? "sr-only" : undefined}>
        {state === "copied" ? t.common.copied : state === "failed" ? t.common.copyFailed : ""}
      </span>
    </button>
  );
}
