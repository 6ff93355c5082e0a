import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { AppError } from "../../kernel/errors";
import { getStorage } from "../../storage/driver";
import { addDocument, DOCUMENT_TOO_LARGE_MESSAGE, MAX_DOCUMENT_BYTES, type KnowledgeDocument } from "./documents";
import { getKnowledgeBase } from "./knowledge-bases";

// Documents larger than a host lets through a request body (Vercel: 4.5 MB) go to the bucket
// first, through a presigned PUT, and are then added from there: the same checks as a direct
// upload (type, size, UTF-8), read from the stored object. S3 storage only: local storage has no
// such limit in front of it, and its presigned PUTs take images only.

const UPLOAD_MINUTES = 15;
const keyPattern = (kbId: string) => new RegExp(`^knowledge-uploads/${kbId}/[0-9a-f-]{36}$`);

export const PresignDocumentSchema = z.object({
  mime_type: z.string().trim().min(1).describe("text/plain or text/markdown"),
  size: z.number().int().min(1).describe("The exact size of the file in bytes"),
});
export const UploadedDocumentSchema = z.object({
  key: z.string().describe("The key the presign answer named"),
  title: z.string().describe("The document's title"),
  mime_type: z.string().trim().min(1).describe("text/plain or text/markdown"),
});

function s3Storage() {
  const storage = getStorage();
  if (storage.name !== "s3") {
    throw new AppError("CONFLICT", "Presigned document uploads need S3 storage (S3_BUCKET); send the document to POST /api/v1/admin/knowledge/{kbId}/documents");
  }
  return storage;
}

/** A PUT URL for one document of this type and exact size, and the key to add it from afterwards. */
export async function presignDocumentUpload(opts: { kbId: string; request: z.infer<typeof PresignDocumentSchema>; origin: string }) {
  const storage = s3Storage();
  await getKnowledgeBase({ id: opts.kbId });
  if (opts.request.size > MAX_DOCUMENT_BYTES) throw new AppError("PAYLOAD_TOO_LARGE", DOCUMENT_TOO_LARGE_MESSAGE);
  const key = `knowledge-uploads/${opts.kbId}/${randomUUID()}`;
  const expiresAt = new Date(Date.now() + UPLOAD_MINUTES * 60_000);
  const put = await storage.presignPut({ bucket: storage.bucket, path: key, contentType: opts.request.mime_type, contentLength: opts.request.size, expiresAt, origin: opts.origin });
  return { key, upload: { method: "PUT" as const, url: put.url, headers: put.headers, expires_at: expiresAt.toISOString() } };
}

/** Adds the document uploaded to `key`, as POST …/documents would have. */
export async function addUploadedDocument(opts: { kbId: string; request: z.infer<typeof UploadedDocumentSchema> }): Promise<KnowledgeDocument> {
  const storage = s3Storage();
  if (!keyPattern(opts.kbId).test(opts.request.key)) {
    throw new AppError("BAD_REQUEST", "key must be the one the presign answer named for this knowledge base", { field: "key" });
  }
  const stored = await storage.getObject({ bucket: storage.bucket, path: opts.request.key });
  if (!stored) throw new AppError("NOT_FOUND", "Nothing was uploaded to this key: PUT the document to the presigned URL first");
  return addDocument({ kbId: opts.kbId, title: opts.request.title, mimeType: opts.request.mime_type, bytes: stored.data });
}
