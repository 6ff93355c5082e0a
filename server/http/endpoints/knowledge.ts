import "server-only";
import { addDocument } from "../../knowledge/service/documents";
import { addUploadedDocument, presignDocumentUpload, PresignDocumentSchema, UploadedDocumentSchema } from "../../knowledge/service/document-uploads";
import { readDocumentUpload } from "../../knowledge/service/upload";
import { jsonBody, upload } from "../bodies";
import { endpoint } from "../endpoint";
import { jsonResponse } from "../json";

/** POST /api/v1/admin/knowledge/{kbId}/documents: add one text/Markdown document (multipart `file`, optional `title`) → the document with its chunk count. */
export const addDocumentEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/admin/knowledge/[kbId]/documents",
  auth: "admin",
  body: upload(readDocumentUpload),
  upload: true,
  handle: async ({ params, body }) => jsonResponse(await addDocument({ kbId: params.kbId!, ...body }), 201),
});

/** POST /api/v1/admin/knowledge/{kbId}/documents/presign: a presigned PUT for a document too large for a request body {mime_type, size} → {key, upload}. */
export const presignDocumentEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/admin/knowledge/[kbId]/documents/presign",
  auth: "admin",
  body: jsonBody(PresignDocumentSchema),
  handle: async ({ params, body, origin }) => jsonResponse(await presignDocumentUpload({ kbId: params.kbId!, request: body, origin: origin() }), 201),
});

/** POST /api/v1/admin/knowledge/{kbId}/documents/uploaded: add the document PUT to a presigned key {key, title, mime_type} → the document. */
export const addUploadedDocumentEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/admin/knowledge/[kbId]/documents/uploaded",
  auth: "admin",
  body: jsonBody(UploadedDocumentSchema),
  handle: async ({ params, body }) => jsonResponse(await addUploadedDocument({ kbId: params.kbId!, request: body }), 201),
});
