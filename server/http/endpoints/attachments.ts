import "server-only";
import { PresignRequestSchema, presignAttachmentUpload, TOO_LARGE_MESSAGE, uploadAttachment } from "../../services/attachments";
import { MAX_ATTACHMENT_BYTES } from "../../storage/image-type";
import { readUploadForm } from "../../storage/upload-body";
import { jsonBody, upload } from "../bodies";
import { endpoint } from "../endpoint";
import { jsonResponse } from "../json";

/** POST /api/v1/agent/attachments: upload one image (multipart `file`, optional `threadId`) → {bucket, path, mime_type, url}. */
export const uploadAttachmentEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/agent/attachments",
  auth: "caller",
  body: upload((body) => readUploadForm(body, { maxFileBytes: MAX_ATTACHMENT_BYTES, tooLargeMessage: TOO_LARGE_MESSAGE })),
  upload: true,
  async handle({ principal, body: form, origin }) {
    const file = { data: form.file.data, declaredType: form.file.contentType };
    return jsonResponse(await uploadAttachment({ userId: principal.userId, threadId: form.threadId, file, requestOrigin: origin() }), 201);
  },
});

/** POST /api/v1/agent/attachments/presign: a signed PUT for a large image upload {mime_type, size, threadId?}, plus its signed GET url. */
export const presignAttachmentEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/agent/attachments/presign",
  auth: "caller",
  body: jsonBody(PresignRequestSchema),
  handle: async ({ principal, body, origin }) => jsonResponse(await presignAttachmentUpload({ userId: principal.userId, request: body, requestOrigin: origin() }), 201),
});
