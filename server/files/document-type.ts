import "server-only";
import { fileTypeFromBuffer } from "file-type";

// Documents users may attach beside images: PDF, plain text, Markdown, CSV and JSON. The
// declared type is a claim; the bytes decide. A PDF must start as one (file-type reads the
// magic bytes); the text types have no magic, so they must be valid UTF-8 without NUL bytes
// (and JSON must parse). Anything file-type recognises as another format (an executable, an
// archive, an image) is refused under its real name, whatever the file was called.

export const DOCUMENT_TYPES = {
  "application/pdf": { ext: "pdf", label: "PDF", maxBytes: 10 * 1024 * 1024 },
  "text/plain": { ext: "txt", label: "plain text", maxBytes: 2 * 1024 * 1024 },
  "text/markdown": { ext: "md", label: "Markdown", maxBytes: 2 * 1024 * 1024 },
  "text/csv": { ext: "csv", label: "CSV", maxBytes: 2 * 1024 * 1024 },
  "application/json": { ext: "json", label: "JSON", maxBytes: 2 * 1024 * 1024 },
} as const;

export type DocumentMimeType = keyof typeof DOCUMENT_TYPES;

export const ALLOWED_DOCUMENTS_TEXT = "PDF, plain text, Markdown, CSV or JSON";

const ALIASES: Record<string, DocumentMimeType> = {
  "text/x-markdown": "text/markdown",
  "text/md": "text/markdown",
  "application/csv": "text/csv",
  "text/x-csv": "text/csv",
  "text/json": "application/json",
};

/** A declared MIME type as one of the document types (parameters and case ignored), or null. */
export function normalizeDocumentType(declared: string | null | undefined): DocumentMimeType | null {
  const base = (declared ?? "").split(";")[0]!.trim().toLowerCase();
  const type = ALIASES[base] ?? base;
  return type in DOCUMENT_TYPES ? (type as DocumentMimeType) : null;
}

export function isDocumentType(type: string): type is DocumentMimeType {
  return type in DOCUMENT_TYPES;
}

/** The document type a stored object's extension implies (our keys end in DOCUMENT_TYPES' ext). */
export function documentTypeForPath(path: string): DocumentMimeType | null {
  const ext = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
  const found = Object.entries(DOCUMENT_TYPES).find(([, t]) => t.ext === ext);
  return found ? (found[0] as DocumentMimeType) : null;
}

export function documentSizeLimitText(type: DocumentMimeType): string {
  return `${DOCUMENT_TYPES[type].maxBytes / (1024 * 1024)} MB`;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The bytes as UTF-8 text (a leading BOM dropped), or null when they are not text: invalid UTF-8 or a NUL byte. */
export function decodeUtf8Text(data: Uint8Array): string | null {
  if (data.includes(0)) return null;
  try {
    return utf8.decode(data).replace(/^\uFEFF/, "");
  } catch {
    return null;
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export type ContentCheck = { ok: true } | { ok: false; detected: string; message: string };

/**
 * Whether `data` is really a document of the declared type. A refusal names what the bytes
 * are (file-type's MIME type, or "binary data" when unknown and not text).
 */
export async function checkDocumentContent(data: Uint8Array, declared: DocumentMimeType): Promise<ContentCheck> {
  const label = DOCUMENT_TYPES[declared].label;
  const sniffed = await fileTypeFromBuffer(data);
  if (declared === "application/pdf") {
    if (sniffed?.mime === "application/pdf") return { ok: true };
    const detected = sniffed?.mime ?? "unknown binary data";
    return { ok: false, detected, message: `The file's declared type application/pdf does not match its content (${detected})` };
  }
  if (sniffed) return { ok: false, detected: sniffed.mime, message: `The file's declared type ${declared} does not match its content (${sniffed.mime})` };
  const text = decodeUtf8Text(data);
  if (text === null) return { ok: false, detected: "binary data", message: `The file is not ${label} text: it is not UTF-8 or contains NUL bytes` };
  if (declared === "application/json" && !isJson(text)) return { ok: false, detected: "text/plain", message: "The file is not valid JSON" };
  return { ok: true };
}
