"use client";

import { useId, useState } from "react";
import { cardSummary, UiSchemaView } from "@/components/ui-schema/ui-schema-view";
import { useI18n } from "@/components/i18n/use-dictionary";
import { dayName } from "@/components/i18n/format";
import { isDocumentType } from "./attachment-types";
import { CopyButton } from "./copy-button";
import { FileChip } from "./file-chip";
import { PencilIcon } from "./icons";
import { Markdown } from "./markdown";
import { useMessageActions } from "./message-actions";

// The bubbles of a conversation, shared by the server-rendered history and the live stream
// so a message looks the same before and after a reload.

/** An attachment of a user message: an image, or a document (shown as a file chip with its name and size). */
export type ImageRef = { url: string; mimeType?: string; name?: string; size?: number };

const MAX_TOOL_TEXT = 4_000;

/** A user message's documents as file chips, then its images. */
function MessageAttachments({ attachments }: { attachments: ImageRef[] }) {
  const { t } = useI18n();
  const files = attachments.filter((a) => isDocumentType(a.mimeType));
  const pictures = attachments.filter((a) => !isDocumentType(a.mimeType));
  return (
    <>
      {files.length > 0 ? (
        <div className="chat-msg-files">
          {files.map((file) => (
            <FileChip key={file.url} url={file.url} name={file.name || "document"} mimeType={file.mimeType!} size={file.size} />
          ))}
        </div>
      ) : null}
      {pictures.length > 0 ? (
        <div className="chat-msg-images">
          {pictures.map((image) => (
            <a key={image.url} href={image.url} target="_blank" rel="noreferrer" className="chat-msg-image-link">
              {/* eslint-disable-next-line @next/next/no-img-element -- signed attachment URLs live on any storage host and expire */}
              <img src={image.url} alt={image.name ? t.chat.attachedImageNamed(image.name) : t.chat.attachedImage} className="chat-msg-image" data-testid="user-message-image" />
            </a>
          ))}
        </div>
      ) : null}
    </>
  );
}

/** `messageId`: the thread's id of the message, which an edit replaces (docs/branches.md); none for a message not stored yet. */
export function UserMessage({ messageId, text, images }: { messageId?: string; text: string; images: ImageRef[] }) {
  const { t } = useI18n();
  const actions = useMessageActions();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(text);
  const editId = useId();
  const canEdit = actions !== null && text !== "";

  return (
    <article className="chat-msg chat-msg-user" data-testid="user-message" aria-label={t.chat.youSaid}>
      <MessageAttachments attachments={images} />
      {editing && actions ? (
        <form
          className="chat-edit"
          data-testid="edit-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (!draft.trim() || actions.busy) return;
            setEditing(false);
            actions.send({
              text: draft.trim(),
              images: images.map((i) => ({ url: i.url, mimeType: i.mimeType ?? "image/*", name: i.name ?? "", size: i.size })),
              ...(messageId ? { branch: { replace: messageId } } : {}),
            });
          }}
        >
          <label className="sr-only" htmlFor={editId}>
            {t.chat.editLabel}
          </label>
          <textarea id={editId} className="chat-edit-input" value={draft} autoFocus rows={3} onChange={(e) => setDraft(e.target.value)} data-testid="edit-input" />
          <p className="chat-composer-note">{t.chat.editNote}</p>
          <div className="row chat-edit-actions">
            <button type="button" className="btn" onClick={() => setEditing(false)}>
              {t.common.cancel}
            </button>
            <button type="submit" className="btn btn-primary" disabled={!draft.trim() || actions.busy} data-testid="edit-send">
              {t.chat.sendEdited}
            </button>
          </div>
        </form>
      ) : text ? (
        <div className="chat-msg-text">{text}</div>
      ) : null}
      {!editing && text ? (
        <div className="chat-msg-actions">
          <CopyButton text={text} label={t.chat.copyMessage} />
          {canEdit ? (
            <button
              type="button"
              className="chat-mini-btn"
              data-testid="edit"
              aria-label={t.chat.edit}
              title={t.chat.edit}
              disabled={actions.busy}
              onClick={() => {
                setDraft(text);
                setEditing(true);
              }}
            >
              <PencilIcon size={14} />
            </button>
          ) : null}
        </div>
      ) : null}
    </article>
  );
}

export function AssistantMessage({ text, streaming = false }: { text: string; streaming?: boolean }) {
  const { t } = useI18n();
  return (
    <article className="chat-msg chat-msg-assistant" data-testid="assistant-message" data-streaming={streaming ? "true" : "false"} aria-label={t.chat.assistantSaid}>
      <Markdown text={text} streaming={streaming} />
      {streaming ? <span className="chat-caret" aria-hidden="true" /> : null}
      {!streaming && text ? (
        <div className="chat-msg-actions">
          <CopyButton text={text} label={t.chat.copyMessage} />
        </div>
      ) : null}
    </article>
  );
}

/**
 * The model's thinking before an answer or a tool call: collapsed to one line ("Thinking…" while
 * it streams, then how long it took), the thought itself on demand. `durationMs` is null when
 * the time is not known (thinking an older server recorded).
 */
export function Reasoning({ text, streaming = false, durationMs }: { text: string; streaming?: boolean; durationMs: number | null }) {
  const { t } = useI18n();
  const label = streaming ? t.chat.thinking : durationMs === null ? t.chat.thought : t.chat.thoughtFor(Math.round(durationMs / 1000));
  return (
    <details className="chat-reasoning" data-testid="reasoning" data-streaming={streaming ? "true" : "false"}>
      <summary>
        {streaming ? <span className="chat-spinner" aria-hidden="true" /> : null}
        <span data-testid="reasoning-label">{label}</span>
      </summary>
      <div className="chat-reasoning-text">{text}</div>
    </details>
  );
}

type ToolStatus = "running" | "done" | "stopped";

/**
 * A tool call: a short note while it runs, then its card (UiSchema) or, without one, its raw
 * output. `intermediate`: another call followed it in the same answer, so a lookup card (say,
 * the contacts searched before scheduling) is one line, its details on demand.
 */
export function ToolCall({ name, status, uiSchema, content, intermediate = false }: { name: string | null; status: ToolStatus; uiSchema: unknown; content: string | null; intermediate?: boolean }) {
  const { t } = useI18n();
  const hasCard = uiSchema !== null && uiSchema !== undefined;
  const lookup = intermediate && status === "done" && hasCard ? cardSummary(uiSchema) : null;
  if (lookup && lookup.status === "info") {
    return (
      <div className="chat-tool" data-testid="tool-call" data-status={status} data-tool={name ?? undefined} data-intermediate="true">
        <details className="chat-tool-lookup">
          <summary>{t.chat.lookedUp(lookup.title)}</summary>
          <UiSchemaView schema={uiSchema} />
        </details>
      </div>
    );
  }
  const words: Record<ToolStatus, string> = { running: t.chat.toolRunning, done: t.chat.toolDone, stopped: t.chat.toolStopped };
  return (
    <div className="chat-tool" data-testid="tool-call" data-status={status} data-tool={name ?? undefined}>
      {status !== "done" || !hasCard ? (
        <div className="chat-tool-head">
          {status === "running" ? <span className="chat-spinner" aria-hidden="true" /> : null}
          <span className="chat-tool-name">{name ?? t.chat.toolResult}</span>
          {name ? <span className="muted">{words[status]}</span> : null}
        </div>
      ) : null}
      {hasCard ? <UiSchemaView schema={uiSchema} /> : null}
      {!hasCard && content ? (
        <details className="chat-tool-output">
          <summary>{t.chat.output}</summary>
          <pre tabIndex={0}>{content.length > MAX_TOOL_TEXT ? `${content.slice(0, MAX_TOOL_TEXT)}…` : content}</pre>
        </details>
      ) : null}
    </div>
  );
}

/** A day's header ("Today", "Yesterday" or the date) for a day in the viewer's zone. */
export function DayHeader({ day, id }: { day: string; id?: string }) {
  const { t, locale, timeZone } = useI18n();
  return (
    <h2 className="chat-day-header" id={id} tabIndex={-1} data-testid="day-header" data-day={day}>
      <span>{dayName(day, { locale, timeZone, words: t.common })}</span>
    </h2>
  );
}

/** The mark under an answer the user stopped, live and after a reload alike. */
export function StoppedNote() {
  const { t } = useI18n();
  return (
    <p className="chat-run-note" data-testid="run-cancelled">
      {t.chat.stoppedNote}
    </p>
  );
}
