"use client";
import { useRef, useState } from "react";
import { z } from "zod";
import { RequestError } from "../i18n/request-error";
import { useDictionary, useRequestErrorText } from "../i18n/use-dictionary";
import styles from "./admin.module.css";

// Uploads documents to POST /api/v1/admin/knowledge/{kbId}/documents with XMLHttpRequest,
// the browser API that reports upload progress. Several files upload one after another. A file
// above what hosts such as Vercel let through a request body goes to S3 storage through a
// presigned PUT, then is added from there (docs/vercel.md); without S3 it goes the direct way.

const MAX_BYTES = 5 * 1024 * 1024;
const DIRECT_UPLOAD_MAX_BYTES = 4 * 1024 * 1024;
const presignedSchema = z.object({ key: z.string(), upload: z.object({ url: z.string(), headers: z.record(z.string(), z.string()) }) });
const ACCEPT = ".md,.markdown,.txt,text/plain,text/markdown";

type Upload = { key: string; name: string; progress: number; status: "waiting" | "uploading" | "indexing" | "done" | "failed"; message: string | null };

const errorSchema = z.object({ error: z.object({ message: z.string() }) });
const doneSchema = z.object({ chunkCount: z.number() });

/** A refused request, said in the page's language by useRequestErrorText (the server's words only where they say what to fix). */
function refusal(status: number, body: string): RequestError {
  try {
    const parsed = errorSchema.safeParse(JSON.parse(body));
    if (parsed.success) return new RequestError(status, parsed.data.error.message);
  } catch {
    // not JSON: no words of the server's
  }
  return new RequestError(status, "");
}

// An answer the page cannot read is the server's problem, said as such; a request that never got
// an answer is a connection problem (an error without a status).
const UNREADABLE = new RequestError(502, "");
const NO_CONNECTION = new Error("no connection");

type Sent = { ok: true; chunks: number } | { ok: false; error: Error };

async function send(kbId: string, file: File, onProgress: (fraction: number) => void): Promise<Sent> {
  if (file.size <= DIRECT_UPLOAD_MAX_BYTES) return sendDirect(kbId, file, onProgress);
  const base = `/api/v1/admin/knowledge/${kbId}/documents`;
  const mimeType = file.type || (/\.(md|markdown)$/i.test(file.name) ? "text/markdown" : "text/plain");
  const json = (body: unknown) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  try {
    const presign = await fetch(`${base}/presign`, json({ mime_type: mimeType, size: file.size }));
    // 409: no S3 storage, so no body limit in front of the app either.
    if (presign.status === 409) return sendDirect(kbId, file, onProgress);
    const presignText = await presign.text();
    if (!presign.ok) return { ok: false, error: refusal(presign.status, presignText) };
    const { key, upload } = presignedSchema.parse(JSON.parse(presignText));
    const put = await new Promise<number>((resolve) => {
      const xhr = new XMLHttpRequest();
      xhr.open("PUT", upload.url);
      for (const [name, value] of Object.entries(upload.headers)) if (name.toLowerCase() !== "content-length") xhr.setRequestHeader(name, value);
      xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
      xhr.onload = () => resolve(xhr.status);
      xhr.onerror = () => resolve(0);
      xhr.send(file);
    });
    if (put < 200 || put >= 300) return { ok: false, error: put === 0 ? NO_CONNECTION : new RequestError(put, "") };
    onProgress(1);
    const added = await fetch(`${base}/uploaded`, json({ key, title: file.name, mime_type: mimeType }));
    const addedText = await added.text();
    if (!added.ok) return { ok: false, error: refusal(added.status, addedText) };
    const parsed = doneSchema.safeParse(JSON.parse(addedText));
    return parsed.success ? { ok: true, chunks: parsed.data.chunkCount } : { ok: false, error: UNREADABLE };
  } catch {
    return { ok: false, error: NO_CONNECTION };
  }
}

function sendDirect(kbId: string, file: File, onProgress: (fraction: number) => void): Promise<Sent> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `/api/v1/admin/knowledge/${kbId}/documents`);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      if (xhr.status < 200 || xhr.status >= 300) return resolve({ ok: false, error: refusal(xhr.status, xhr.responseText) });
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // reported below
      }
      const parsed = doneSchema.safeParse(body);
      resolve(parsed.success ? { ok: true, chunks: parsed.data.chunkCount } : { ok: false, error: UNREADABLE });
    };
    xhr.onerror = () => resolve({ ok: false, error: NO_CONNECTION });
    const form = new FormData();
    form.append("file", file, file.name);
    xhr.send(form);
  });
}

export function KnowledgeUpload({ kbId, onUploaded }: { kbId: string; onUploaded: () => void }) {
  const t = useDictionary().console.knowledge;
  const errorText = useRequestErrorText();
  const [uploads, setUploads] = useState<Upload[]>([]);
  const input = useRef<HTMLInputElement>(null);
  const busy = uploads.some((u) => u.status === "waiting" || u.status === "uploading" || u.status === "indexing");
  const update = (key: string, patch: Partial<Upload>) => setUploads((list) => list.map((u) => (u.key === key ? { ...u, ...patch } : u)));

  const start = async (files: File[]) => {
    const batch = files.map((file, i): Upload & { file: File } => ({
      key: `${Date.now()}-${i}-${file.name}`,
      name: file.name,
      file,
      progress: 0,
      status: file.size > MAX_BYTES ? "failed" : "waiting",
      message: file.size > MAX_BYTES ? t.tooLarge : null,
    }));
    setUploads((list) => [...batch.map(({ file: _file, ...u }) => u), ...list]);
    for (const item of batch) {
      if (item.status === "failed") continue;
      update(item.key, { status: "uploading" });
      const result = await send(kbId, item.file, (progress) => update(item.key, { progress, status: progress >= 1 ? "indexing" : "uploading" }));
      if (result.ok) {
        update(item.key, { status: "done", progress: 1, message: t.indexed(result.chunks) });
        onUploaded();
      } else update(item.key, { status: "failed", message: errorText(result.error) });
    }
  };

  return (
    <section className="card" aria-labelledby="kb-upload-title">
      <h2 id="kb-upload-title" className={styles.sectionTitle}>
        {t.upload}
      </h2>
      <div className="row">
        <label htmlFor="kb-file" className="muted">
          {t.uploadHelp}
        </label>
        <input
          ref={input}
          id="kb-file"
          data-testid="kb-file-input"
          type="file"
          multiple
          accept={ACCEPT}
          disabled={busy}
          onChange={(e) => {
            const files = [...(e.target.files ?? [])];
            if (input.current) input.current.value = "";
            if (files.length > 0) void start(files);
          }}
        />
      </div>
      {uploads.length > 0 ? (
        <ul className="stack" style={{ listStyle: "none", padding: 0, margin: "12px 0 0" }} aria-live="polite">
          {uploads.map((u) => (
            <li key={u.key} className="row" data-testid="kb-upload" data-status={u.status}>
              <span className="mono">{u.name}</span>
              {u.status === "uploading" || u.status === "indexing" ? (
                <progress max={1} value={u.status === "indexing" ? undefined : u.progress} aria-label={t.uploadingFile(u.name)} />
              ) : null}
              <span className={u.status === "failed" ? "error-text" : "muted"} role={u.status === "failed" ? "alert" : undefined}>
                {u.status === "waiting" ? t.waiting : u.status === "uploading" ? t.uploading : u.status === "indexing" ? t.indexing : u.message}
              </span>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
