"use client";

import { useRef, useState, useSyncExternalStore } from "react";
import type { SendInput } from "./use-chat-runs";
import { PaperclipIcon } from "./icons";
import { ModelPicker } from "./model-picker";
import { useAttachments, MAX_ATTACHMENTS } from "./use-attachments";

// The spec's limit on a user message's text, in characters (code points).
const MAX_TEXT = 10_000;

const noSubscription = () => () => {};

function imageFiles(list: FileList | null | undefined): File[] {
  return [...(list ?? [])].filter((f) => f.type.startsWith("image/"));
}

export function Composer({
  threadId,
  busy,
  stopping,
  onSend,
  onStop,
}: {
  threadId: string;
  busy: boolean;
  stopping: boolean;
  onSend: (input: SendInput) => void;
  onStop: () => void;
}) {
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
  const blocked = attachments.uploading ? "Waiting for images to upload…" : attachments.failed ? "Remove the images that failed to upload." : null;
  const canSend = !busy && hasContent && !tooLong && !blocked;

  const submit = () => {
    if (!canSend) return;
    onSend({ text: text.trim(), images: attachments.take() });
    setText("");
    textarea.current?.focus();
  };

  return (
    <form
      className="chat-composer"
      aria-label="Send a message"
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
        <ul className="chat-attachments" aria-label="Images to send" data-testid="composer-attachments">
          {attachments.items.map((a) => (
            <li key={a.id} className="chat-attachment" data-testid="composer-attachment" data-status={a.status}>
              {/* eslint-disable-next-line @next/next/no-img-element -- a local blob: preview of the picked file */}
              <img src={a.previewUrl} alt={`Preview of ${a.name}`} />
              {a.status === "uploading" ? (
                <progress className="chat-attachment-progress" max={1} value={a.progress} aria-label={`Uploading ${a.name}`} />
              ) : null}
              {a.status === "failed" ? (
                <span className="chat-attachment-error" role="alert">
                  {a.error}
                </span>
              ) : null}
              <button type="button" className="chat-attachment-remove" aria-label={`Remove image ${a.name}`} onClick={() => attachments.remove(a.id)}>
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
          aria-label="Attach images"
          title={`Attach images (up to ${MAX_ATTACHMENTS})`}
          onClick={() => fileInput.current?.click()}
        >
          <PaperclipIcon size={18} />
        </button>
        <input
          ref={fileInput}
          type="file"
          accept="image/*"
          multiple
          hidden
          data-testid="attach-input"
          onChange={(e) => {
            attachments.add([...(e.target.files ?? [])]);
            e.target.value = "";
          }}
        />
        <ModelPicker />
        <label htmlFor="chat-input" className="sr-only">
          Message
        </label>
        <textarea
          id="chat-input"
          ref={textarea}
          className="chat-input"
          data-testid="chat-input"
          placeholder="Message Dispatch…"
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
            {stopping ? "Stopping…" : "Stop"}
          </button>
        ) : (
          <button type="submit" className="btn btn-primary chat-send" data-testid="send" disabled={!canSend}>
            Send
          </button>
        )}
      </div>
      <p id="chat-input-hint" className={`chat-composer-note${tooLong ? " error-text" : ""}`} aria-live="polite">
        {tooLong ? (
          `${length.toLocaleString("en")} / ${MAX_TEXT.toLocaleString("en")} characters: shorten your message to send it.`
        ) : (
          blocked ?? <span className="chat-hide-narrow">Enter to send · Shift+Enter for a new line</span>
        )}
      </p>
    </form>
  );
}
