import "server-only";
import { addDocument } from "../../knowledge/documents";
import { readDocumentUpload } from "../../knowledge/upload";
import { upload } from "../bodies";
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
