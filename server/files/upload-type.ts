import "server-only";
import { AppError } from "../kernel/errors";
import { ALLOWED_IMAGES_TEXT, MAX_ATTACHMENT_BYTES, normalizeImageType, sniffImageType, type ImageMimeType } from "../storage/image-type";
import {
  ALLOWED_DOCUMENTS_TEXT,
  DOCUMENT_TYPES,
  checkDocumentContent,
  documentSizeLimitText,
  documentTypeForPath,
  normalizeDocumentType,
  type DocumentMimeType,
} from "./document-type";

// What an upload may be: one of the image types (server/storage/image-type.ts) or one of the
// document types (document-type.ts beside this file), each with its size limit, and the check
// that the bytes are what was declared.

export type UploadMimeType = ImageMimeType | DocumentMimeType;

export const IMAGE_TOO_LARGE_MESSAGE = `Attachment exceeds the ${MAX_ATTACHMENT_BYTES / (1024 * 1024)} MB size limit`;

/**
 * The type an upload claims: its declared Content-Type, or, when it declares none (or only
 * application/octet-stream, as browsers do for a .md or .csv they do not know), the document
 * type its name's extension suggests. Either way it is a claim the bytes must then bear out.
 */
export function claimedUploadType(declared: string | null, fileName: string | null | undefined): string | null {
  const base = (declared ?? "").split(";")[0]!.trim().toLowerCase();
  if (base && base !== "application/octet-stream") return declared;
  return documentTypeForPath(fileName ?? "") ?? declared;
}

/** The declared type as one we accept, or a 415 naming what is. */
export function requireUploadType(declared: string | null): UploadMimeType {
  const type = normalizeImageType(declared) ?? normalizeDocumentType(declared);
  if (!type) {
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", `Unsupported file type ${declared || "(none)"}: upload a ${ALLOWED_IMAGES_TEXT} image or a ${ALLOWED_DOCUMENTS_TEXT} file`);
  }
  return type;
}

export const isDocumentUpload = (type: string): type is DocumentMimeType => type in DOCUMENT_TYPES;

export function uploadSizeLimit(type: UploadMimeType): number {
  return isDocumentUpload(type) ? DOCUMENT_TYPES[type].maxBytes : MAX_ATTACHMENT_BYTES;
}

/** A 413 when `size` is over the type's limit. */
export function requireUploadSize(type: UploadMimeType, size: number): void {
  if (size <= uploadSizeLimit(type)) return;
  if (!isDocumentUpload(type)) throw new AppError("PAYLOAD_TOO_LARGE", IMAGE_TOO_LARGE_MESSAGE);
  throw new AppError("PAYLOAD_TOO_LARGE", `Attachment exceeds the ${documentSizeLimitText(type)} size limit for ${DOCUMENT_TYPES[type].label} files`);
}

/** The bytes must be the type that was declared for them: a 415 naming what they are otherwise. */
export async function requireMatchingContent(data: Uint8Array, declared: UploadMimeType): Promise<void> {
  if (isDocumentUpload(declared)) {
    const check = await checkDocumentContent(data, declared);
    if (!check.ok) throw new AppError("UNSUPPORTED_MEDIA_TYPE", check.message, { detected: check.detected });
    return;
  }
  const actual = sniffImageType(data);
  if (!actual) throw new AppError("UNSUPPORTED_MEDIA_TYPE", `The file is not a ${ALLOWED_IMAGES_TEXT} image`);
  if (actual !== declared) throw new AppError("UNSUPPORTED_MEDIA_TYPE", `The file's declared type ${declared} does not match its content (${actual})`);
}

const MAX_FILE_NAME_CHARS = 200;

/**
 * The name a user gave a file, fit to show a model and a person: its last path segment,
 * without control characters, at most 200 characters. Null when nothing is left.
 */
export function cleanFileName(name: string | null | undefined): string | null {
  const base = (name ?? "").split(/[\\/]/).pop() ?? "";
  // eslint-disable-next-line no-control-regex
  const cleaned = base.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, "").trim();
  return cleaned ? [...cleaned].slice(0, MAX_FILE_NAME_CHARS).join("") : null;
}
