"use client";

import { useI18n } from "@/components/i18n/use-dictionary";
import { formatBytes } from "./attachment-types";

// A document attachment (PDF, text, Markdown, CSV, JSON) as a chip: an icon, its name and its
// size, in the composer while it uploads and in the sent message (a link to it, when signed).
// The link's name is what it shows, after a word for screen readers (WCAG 2.5.3: the visible
// label is part of the name, so voice control can say it in any language).

function badge(mimeType: string): string {
  if (mimeType === "application/pdf") return "PDF";
  if (mimeType === "text/csv") return "CSV";
  if (mimeType === "application/json") return "JSON";
  if (mimeType === "text/markdown") return "MD";
  return "TXT";
}

export function FileChip({ name, mimeType, size, url }: { name: string; mimeType: string; size?: number; url?: string }) {
  const { t } = useI18n();
  const body = (
    <>
      <span className="chat-file-icon" aria-hidden="true">
        {badge(mimeType)}
      </span>
      <span className="chat-file-name">{name}</span>
      {size !== undefined ? <span className="chat-file-size">{formatBytes(size)}</span> : null}
    </>
  );
  return url ? (
    <a className="chat-file" href={url} target="_blank" rel="noreferrer" data-testid="file-chip">
      <span className="sr-only">{t.chat.attachedFile} </span>
      {body}
    </a>
  ) : (
    <span className="chat-file" data-testid="file-chip">
      {body}
    </span>
  );
}
