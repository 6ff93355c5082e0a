"use client";

import { useRef, useState, useSyncExternalStore } from "react";
import type { SendInput } from "./use-chat-runs";
import { PaperclipIcon } from "./icons";
import { AgentPicker } from "./agent-picker";
import { ModelPicker } from "./model-picker";
import { useAttachments, MAX_ATTACHMENTS } from "./use-attachments";
import { ATTACHABLE_TYPES } from "./attachment-types";
import { FileChip } from "./file-chip";
import { useI18n } from "@/components/i18n/use-dictionary";
import { formatNumber } from "@/components/i18n/format";

// The spec's limit on a user message's text, in characters (code points).
const MAX_TEXT = 10_000;

const noSubscription = () => () => {};

function imageFiles(list: FileList | null | undefined): File[] {
  return [...(list ?? [])].filter((f) => f.type.startsWith("image/"));
}

// Long: one form: its text, attachments, model choice and send state belong together.
export function Composer({
  threadId,
  busy,
  stopping,
  onSend,
  onStop,
  confirmSend,
}: {
  threadId: string;
  busy: boolean;
  stopping: boolean;
  onSend: (input: SendInput) => void;
  onStop: () => void;
  /** Runs `proceed` when sending may go ahead (maybe after asking); the text stays in the box until then. */
  confirmSend?: (proceed: () => void) => void;
}) {
  const { t, locale } = useI18n();
  const [text, setText] = useState("");
  const attachments = useAttachments(threadId);
  const textarea = useRef<HTMLTextAreaElement>(null);
  // False in the server's HTML, true once React handles keys here (tests wait for it).
  const hydrated = useSyncExternalStore(noSubscription, () => true, () => false);
  const fileInput = useRef<HTMLInputElement>(null);
  const length = [...text].length;
  const tooLong = length > MAX_TEXT;
  const readyImages = attachments.items.filter((a) => a.status === "ready").length;
  const hasContent = text.trim() !== "" || readyImages > 0;
  const blocked = attachments.uploading ? t.chat.waitUploads : attachments.failed ? t.chat.removeFailed : null;
  const canSend = !busy && hasContent && !tooLong && !blocked;

  const submit = () => {
    if (!canSend) return;
    const proceed = () => {
      onSend({ text: text.trim(), images: attachments.take() });
      setText("");
      textarea.current?.focus();
    };
    if (confirmSend) confirmSend(proceed);
    else proceed();
  };

  return (
    <form
      className="chat-composer"
      aria-label={t.chat.composerLabel}
      data-testid="composer"
      data-hydrated={hydrated ? "true" : "false"}
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
      onDragOver={(e) => {
        if (e.dataTransfer.types.includes("Files")) e.preventDefault();
      }}
      onDrop={(e) => {
        const files = [...e.dataTransfer.files];
        if (files.length === 0) return;
        e.preventDefault();
        attachments.add(files);
      }}
    >
      {attachments.items.length > 0 ? (
        <ul className="chat-attachments" aria-label={t.chat.imagesToSend} data-testid="composer-attachments">
          {attachments.items.map((a) => (
            <li key={a.id} className={a.previewUrl ? "chat-attachment" : "chat-attachment chat-attachment-file"} data-testid="composer-attachment" data-status={a.status}>
              {a.previewUrl ? (
                // eslint-disable-next-line @next/next/no-img-element -- a local blob: preview of the picked file
                <img src={a.previewUrl} alt={t.chat.previewOf(a.name)} />
              ) : (
                <FileChip name={a.name} mimeType={a.mimeType} size={a.size} />
              )}
              {a.status === "uploading" ? (
                <progress className="chat-attachment-progress" max={1} value={a.progress} aria-label={t.chat.uploading(a.name)} />
              ) : null}
              {a.status === "failed" ? (
                <span className="chat-attachment-error" role="alert">
                  {a.error}
                </span>
              ) : null}
              <button
                type="button"
                className="chat-attachment-remove"
                aria-label={a.previewUrl ? t.chat.removeImage(a.name) : t.chat.removeFile(a.name)}
                onClick={() => attachments.remove(a.id)}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {attachments.notice ? (
        <p className="chat-composer-note" role="status">
          {attachments.notice}
        </p>
      ) : null}
      <div className="chat-composer-row">
        <button
          type="button"
          className="btn chat-icon-btn"
          aria-label={t.chat.attachImages}
          title={t.chat.attachImagesUpTo(MAX_ATTACHMENTS)}
          onClick={() => fileInput.current?.click()}
        >
          <PaperclipIcon size={18} />
        </button>
        <input
          ref={fileInput}
          type="file"
          accept={ATTACHABLE_TYPES}
          multiple
          hidden
          data-testid="attach-input"
          onChange={(e) => {
            attachments.add([...(e.target.files ?? [])]);
            e.target.value = "";
          }}
        />
        <AgentPicker />
        <ModelPicker />
        <label htmlFor="chat-input" className="sr-only">
          {t.chat.message}
        </label>
        <textarea
          id="chat-input"
          ref={textarea}
          className="chat-input"
          data-testid="chat-input"
          placeholder={t.chat.placeholder}
          rows={1}
          value={text}
          autoFocus
          aria-describedby="chat-input-hint"
          aria-invalid={tooLong}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              submit();
            }
          }}
          onPaste={(e) => {
            const files = imageFiles(e.clipboardData.files);
            if (files.length === 0) return;
            if (!e.clipboardData.types.includes("text/plain")) e.preventDefault();
            attachments.add(files);
          }}
        />
        {busy ? (
          <button type="button" className="btn chat-send chat-stop" data-testid="stop" onClick={onStop} disabled={stopping}>
            {stopping ? t.chat.stopping : t.chat.stop}
          </button>
        ) : (
          <button type="submit" className="btn btn-primary chat-send" data-testid="send" disabled={!canSend}>
            {t.chat.send}
          </button>
        )}
      </div>
      <p id="chat-input-hint" className={`chat-composer-note${tooLong ? " error-text" : ""}`} aria-live="polite">
        {tooLong ? (
          t.chat.tooLong(formatNumber(length, locale), formatNumber(MAX_TEXT, locale))
        ) : (
          blocked ?? <span className="chat-hide-narrow">{t.chat.hint}</span>
        )}
      </p>
    </form>
  );
}
