import { apiRoute, jsonResponse } from "@/server/http/route";
import { addDocument } from "@/server/knowledge/documents";
import { readDocumentUpload, requireAdminSession } from "@/server/knowledge/upload";
import { closingOnRefusal } from "@/server/storage/upload-body";

export const dynamic = "force-dynamic";

// POST /api/v1/admin/knowledge/{kbId}/documents: add one text/Markdown document (multipart `file`, optional `title`) → the document with its chunk count
export const POST = apiRoute(async (req, ctx) => {
  const { kbId } = await ctx.params;
  const upload = await closingOnRefusal(requireAdminSession(req).then(() => readDocumentUpload(req)), req.body);
  if (upload instanceof Response) return upload;
  const document = await addDocument({ kbId: String(kbId), ...upload });
  return jsonResponse(document, 201);
});
