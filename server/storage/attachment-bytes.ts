import "server-only";
import { AppError } from "../kernel/errors";
import { findAttachment } from "../attachments/repository";
import { getStorage } from "./driver";
import type { ObjectRef } from "./types";

export const ATTACHMENT_NOT_FOUND = "Attachment not found";

/** An attachment's bytes, fetched server-side (for giving the image to a model). */
export async function loadAttachmentBytes(ref: ObjectRef): Promise<{ mimeType: string; data: Uint8Array }> {
  const row = await findAttachment(ref);
  const stored = row ? await getStorage().getObject(ref) : null;
  if (!row || !stored) throw new AppError("NOT_FOUND", ATTACHMENT_NOT_FOUND);
  return { mimeType: row.mimeType, data: stored.data };
}
