import "server-only";
import { readFormFile, type UploadStream } from "../../storage/upload-body";
import { DOCUMENT_TOO_LARGE_MESSAGE, MAX_DOCUMENT_BYTES, resolveDocumentMimeType } from "./documents";

// The admin console's document upload: multipart, so the browser sends the file as it is
// (real upload progress, no base64/JSON re-encoding), the 5 MB limit is enforced while the
// body streams in, and the service sees the raw bytes to check they are UTF-8.

const MAX_TITLE_CHARS = 200;

export type DocumentUpload = { title: string; mimeType: string; bytes: Uint8Array };

/** The form's `file` part (and optional `title`, else the file name). */
export async function readDocumentUpload(upload: UploadStream): Promise<DocumentUpload> {
  const { file, fields } = await readFormFile(upload, {
    maxFileBytes: MAX_DOCUMENT_BYTES,
    tooLargeMessage: DOCUMENT_TOO_LARGE_MESSAGE,
    notMultipartMessage: "Send the document as multipart/form-data with a `file` field",
  });
  const title = (fields.title?.trim() || file.filename?.trim() || "").slice(0, MAX_TITLE_CHARS);
  return { title, mimeType: resolveDocumentMimeType({ declared: file.contentType, filename: file.filename }), bytes: file.data };
}
