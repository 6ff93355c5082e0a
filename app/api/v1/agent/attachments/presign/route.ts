import { authenticateRequest } from "@/server/auth/session";
import { AppError } from "@/server/errors";
import { apiRoute, jsonResponse, readJson } from "@/server/http/route";
import { PresignRequestSchema, presignAttachmentUpload } from "@/server/services/attachments";
import { requestOrigin } from "@/server/http/origin";

export const dynamic = "force-dynamic";

// POST /api/v1/agent/attachments/presign: a signed PUT for a large image upload {mime_type, size, threadId?}, plus its signed GET url
export const POST = apiRoute(async (req) => {
  const principal = await authenticateRequest(req);
  const parsed = PresignRequestSchema.safeParse(await readJson(req));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") ?? "";
    throw new AppError("BAD_REQUEST", `${field ? `${field}: ` : ""}${issue?.message ?? "invalid request"}`, field ? { field } : undefined);
  }
  return jsonResponse(await presignAttachmentUpload({ userId: principal.userId, request: parsed.data, requestOrigin: requestOrigin(req) }), 201);
});
