import "server-only";
import { AppError } from "../errors";
import { multipartBoundary, readMultipart, type UploadStream } from "../storage/upload-body";
import { DOCUMENT_TOO_LARGE_MESSAGE, MAX_DOCUMENT_BYTES, resolveDocumentMimeType } from "./documents";

// The admin console's document upload: multipart, so the browser sends the file as it is
// (real upload progress, no base64/JSON re-encoding), the 5 MB limit is enforced while the
// body streams in, and the service sees the raw bytes to check they are UTF-8.

// Room for the multipart framing around the file: boundaries, part headers, the title field.
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;
const MAX_TITLE_CHARS = 200;

export type DocumentUpload = { title: string; mimeType: string; bytes: Uint8Array };

/** The form's `file` part (and optional `title`, else the file name). */
export async function readDocumentUpload(upload: UploadStream): Promise<DocumentUpload> {
  if (upload.declaredBytes > MAX_DOCUMENT_BYTES + MULTIPART_OVERHEAD_BYTES) throw new AppError("PAYLOAD_TOO_LARGE", DOCUMENT_TOO_LARGE_MESSAGE);
  const boundary = multipartBoundary(upload.contentType);
  if (!boundary || !upload.body) throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send the document as multipart/form-data with a `file` field");
  const form = await readMultipart(upload.body, { boundary, maxFileBytes: MAX_DOCUMENT_BYTES, tooLargeMessage: DOCUMENT_TOO_LARGE_MESSAGE });
  const file = form.files.find((f) => f.field === "file");
  if (!file) throw new AppError("BAD_REQUEST", "The form has no `file` field");
  const title = (form.fields.title?.trim() || file.filename?.trim() || "").slice(0, MAX_TITLE_CHARS);
  return { title, mimeType: resolveDocumentMimeType({ declared: file.contentType, filename: file.filename }), bytes: file.data };
}
