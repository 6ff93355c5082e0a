import { authenticateRequest } from "@/server/auth/session";
import { apiRoute, jsonResponse } from "@/server/http/route";
import { TOO_LARGE_MESSAGE, uploadAttachment } from "@/server/services/attachments";
import { MAX_ATTACHMENT_BYTES } from "@/server/storage/image-type";
import { closingOnRefusal, readUploadForm } from "@/server/storage/upload-body";
import { requestOrigin } from "@/server/http/origin";

export const dynamic = "force-dynamic";

// POST /api/v1/agent/attachments: upload one image (multipart `file`, optional `threadId`) → {bucket, path, mime_type, url}
export const POST = apiRoute(async (req) => {
  const principal = await authenticateRequest(req);
  const form = await closingOnRefusal(readUploadForm(req, { maxFileBytes: MAX_ATTACHMENT_BYTES, tooLargeMessage: TOO_LARGE_MESSAGE }), req.body);
  if (form instanceof Response) return form;
  const uploaded = await uploadAttachment({
    userId: principal.userId,
    threadId: form.threadId,
    file: { data: form.file.data, declaredType: form.file.contentType },
    requestOrigin: requestOrigin(req),
  });
  return jsonResponse(uploaded, 201);
});
