import "server-only";
import { PresignRequestSchema, presignAttachmentUpload, TOO_LARGE_MESSAGE, uploadAttachment } from "../../attachments/service";
import { MAX_ATTACHMENT_BYTES } from "../../storage/image-type";
import { readFormFile, type UploadStream } from "../../storage/upload-body";
import { jsonBody, upload } from "../bodies";
import { endpoint } from "../endpoint";
import { jsonResponse } from "../json";

/** The upload form: its `file` part, and an optional `threadId`. */
async function readImageForm(body: UploadStream) {
  const { file, fields } = await readFormFile(body, {
    maxFileBytes: MAX_ATTACHMENT_BYTES,
    tooLargeMessage: TOO_LARGE_MESSAGE,
    notMultipartMessage: "Send the image as multipart/form-data with a `file` field",
  });
  return { file: { data: file.data, declaredType: file.contentType, fileName: file.filename }, threadId: fields.threadId?.trim() || null };
}

/** POST /api/v1/agent/attachments: upload one image or document (multipart `file`, optional `threadId`) → {bucket, path, mime_type, file_name?, url}. */
export const uploadAttachmentEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/agent/attachments",
  auth: "caller",
  body: upload(readImageForm),
  upload: true,
  async handle({ principal, body: { file, threadId }, origin }) {
    return jsonResponse(await uploadAttachment({ userId: principal.userId, threadId, file, requestOrigin: origin() }), 201);
  },
});

/** POST /api/v1/agent/attachments/presign: a signed PUT for a large upload {mime_type, size, threadId?, file_name?}, plus its signed GET url. */
export const presignAttachmentEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/agent/attachments/presign",
  auth: "caller",
  body: jsonBody(PresignRequestSchema),
  handle: async ({ principal, body, origin }) => jsonResponse(await presignAttachmentUpload({ userId: principal.userId, request: body, requestOrigin: origin() }), 201),
});
