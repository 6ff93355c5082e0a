"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { randomUUID } from "@ag-ui/client";
import { z } from "zod";
import { useDictionary } from "@/components/i18n/use-dictionary";
import type { Dictionary } from "@/components/i18n/dictionaries";
import { attachmentType, isDocumentType } from "./attachment-types";
import type { LiveImage } from "./live-turn";

// Images and documents picked or pasted into the composer, each uploaded at once to
// POST /api/v1/agent/attachments with XHR, the one browser API that reports upload progress.
// A large image goes straight to storage instead, through a presigned PUT: hosts such as Vercel
// refuse request bodies above a few megabytes before they reach the app (docs/vercel.md).
const DIRECT_UPLOAD_MAX_BYTES = 4 * 1024 * 1024;

export const MAX_ATTACHMENTS = 6;

export type Attachment = {
  id: string;
  name: string;
  mimeType: string;
  /** A blob: preview of an image; null for a document (shown as a file chip). */
  previewUrl: string | null;
  size: number;
  /** 0..1 */
  progress: number;
  status: "uploading" | "ready" | "failed";
  url: string | null;
  error: string | null;
};

const uploadedSchema = z.object({ url: z.string().min(1), mime_type: z.string().min(1), bucket: z.string(), path: z.string() });
const errorSchema = z.object({ error: z.object({ message: z.string() }) });
const presignedSchema = uploadedSchema.extend({ upload: z.object({ method: z.literal("PUT"), url: z.string().min(1), headers: z.record(z.string(), z.string()) }) });

function parseUploaded(body: string): z.infer<typeof uploadedSchema> | null {
  try {
    const parsed = uploadedSchema.safeParse(JSON.parse(body));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function uploadError(status: number, body: string, t: Dictionary["uploads"]): string {
  try {
    const parsed = errorSchema.safeParse(JSON.parse(body));
    if (parsed.success) return parsed.data.error.message;
  } catch {
    // not JSON: fall through to a generic sentence
  }
  if (status === 404) return t.unavailable;
  return t.failed(status);
}

// Long: one hook: uploads, previews and their errors share the attachment list.
export function useAttachments(threadId: string) {
  const t = useDictionary().uploads;
  const [items, setItems] = useState<Attachment[]>([]);
  const [notice, setNotice] = useState<string | null>(null);
  const requests = useRef(new Map<string, XMLHttpRequest>());
  const previews = useRef(new Map<string, string>());

  const update = useCallback((id: string, patch: Partial<Attachment>) => {
    setItems((list) => list.map((a) => (a.id === id ? { ...a, ...patch } : a)));
  }, []);

  // One XHR (for its progress events) that ends the item ready with `done`'s answer, or failed.
  const send = useCallback(
    (id: string, open: (xhr: XMLHttpRequest) => XMLHttpRequestBodyInit, done: (xhr: XMLHttpRequest) => { url: string; mime_type: string } | null) => {
      const xhr = new XMLHttpRequest();
      requests.current.set(id, xhr);
      xhr.upload.onprogress = (e) => {
        if (e.lengthComputable) update(id, { progress: e.loaded / e.total });
      };
      xhr.onload = () => {
        requests.current.delete(id);
        if (xhr.status < 200 || xhr.status >= 300) return update(id, { status: "failed", error: uploadError(xhr.status, xhr.responseText, t) });
        const uploaded = done(xhr);
        if (!uploaded) return update(id, { status: "failed", error: t.notUnderstood });
        update(id, { status: "ready", progress: 1, url: uploaded.url, mimeType: uploaded.mime_type });
      };
      xhr.onerror = () => {
        requests.current.delete(id);
        update(id, { status: "failed", error: t.connection });
      };
      xhr.send(open(xhr));
    },
    [update, t],
  );

  const upload = useCallback(
    async (id: string, file: File) => {
      if (file.size <= DIRECT_UPLOAD_MAX_BYTES) {
        const form = new FormData();
        form.append("file", file, file.name);
        form.append("threadId", threadId);
        return send(id, (xhr) => (xhr.open("POST", "/api/v1/agent/attachments"), form), (xhr) => parseUploaded(xhr.responseText));
      }
      let answer: Response;
      try {
        answer = await fetch("/api/v1/agent/attachments/presign", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ mime_type: attachmentType(file), size: file.size, threadId, file_name: file.name }),
        });
      } catch {
        return update(id, { status: "failed", error: t.connection });
      }
      const text = await answer.text();
      if (!answer.ok) return update(id, { status: "failed", error: uploadError(answer.status, text, t) });
      const presigned = (() => {
        try {
          return presignedSchema.safeParse(JSON.parse(text)).data ?? null;
        } catch {
          return null;
        }
      })();
      if (!presigned) return update(id, { status: "failed", error: t.notUnderstood });
      send(
        id,
        (xhr) => {
          xhr.open("PUT", presigned.upload.url);
          for (const [name, value] of Object.entries(presigned.upload.headers)) {
            // The browser sets Content-Length itself and refuses a script that tries.
            if (name.toLowerCase() !== "content-length") xhr.setRequestHeader(name, value);
          }
          return file;
        },
        () => presigned,
      );
    },
    [send, update, threadId, t],
  );

  const add = useCallback(
    (files: Iterable<File>) => {
      const all = [...files];
      const images = all.filter((file) => file.type.startsWith("image/") || isDocumentType(attachmentType(file)));
      const rejected = all.length - images.length;
      const room = Math.max(0, MAX_ATTACHMENTS - items.length);
      const accepted = images.slice(0, room);
      const notes = [];
      if (rejected > 0) notes.push(t.onlyImages);
      if (images.length > accepted.length) notes.push(t.tooMany(MAX_ATTACHMENTS));
      setNotice(notes.length > 0 ? notes.join(" ") : null);
      const added = accepted.map((file): Attachment => {
        const id = randomUUID();
        const mimeType = attachmentType(file);
        const previewUrl = isDocumentType(mimeType) ? null : URL.createObjectURL(file);
        if (previewUrl) previews.current.set(id, previewUrl);
        return { id, name: file.name || "image", mimeType, previewUrl, size: file.size, progress: 0, status: "uploading", url: null, error: null };
      });
      setItems((list) => [...list, ...added]);
      added.forEach((a, i) => void upload(a.id, accepted[i]!));
    },
    [items.length, upload, t],
  );

  const forget = useCallback((id: string) => {
    requests.current.get(id)?.abort();
    requests.current.delete(id);
    const preview = previews.current.get(id);
    if (preview) URL.revokeObjectURL(preview);
    previews.current.delete(id);
  }, []);

  const remove = useCallback(
    (id: string) => {
      forget(id);
      setItems((list) => list.filter((a) => a.id !== id));
      setNotice(null);
    },
    [forget],
  );

  /** The uploaded images for a message, then an empty composer. */
  const take = useCallback((): LiveImage[] => {
    const ready = items.filter((a) => a.status === "ready" && a.url).map((a) => ({ url: a.url!, mimeType: a.mimeType, name: a.name, size: a.size }));
    for (const a of items) forget(a.id);
    setItems([]);
    setNotice(null);
    return ready;
  }, [items, forget]);

  useEffect(() => {
    const open = requests.current;
    const urls = previews.current;
    return () => {
      for (const xhr of open.values()) xhr.abort();
      for (const url of urls.values()) URL.revokeObjectURL(url);
    };
  }, []);

  const uploading = items.some((a) => a.status === "uploading");
  const failed = items.some((a) => a.status === "failed");
  return { items, notice, uploading, failed, add, remove, take };
}
