import "server-only";
import { getDb } from "../db";

const attachmentColumns = {
  id: true,
  userId: true,
  threadId: true,
  driver: true,
  bucket: true,
  path: true,
  mimeType: true,
  size: true,
  sha256: true,
  createdAt: true,
} as const;

/** sha256 of an upload whose bytes the server has not seen yet (a presigned upload). */
export const UNVERIFIED_SHA256 = "";

export function insertAttachment(data: {
  userId: string;
  threadId: string | null;
  driver: string;
  bucket: string;
  path: string;
  mimeType: string;
  size: number;
  sha256: string;
}) {
  return getDb().attachment.create({ data, select: attachmentColumns });
}

/** The attachment if it is this user's; someone else's is indistinguishable from none. */
export function findAttachmentForUser({ bucket, path, userId }: { bucket: string; path: string; userId: string }) {
  return getDb().attachment.findFirst({ where: { bucket, path, userId }, select: attachmentColumns });
}

export function findAttachment({ bucket, path }: { bucket: string; path: string }) {
  return getDb().attachment.findUnique({ where: { bucket_path: { bucket, path } }, select: attachmentColumns });
}

export function markAttachmentVerified({ id, size, sha256 }: { id: string; size: number; sha256: string }) {
  return getDb().attachment.update({ where: { id }, data: { size, sha256 }, select: attachmentColumns });
}

/** Who owns a thread, or null when it does not exist yet (uploads may precede the thread's first run). */
export async function findThreadOwner({ id }: { id: string }): Promise<string | null> {
  const thread = await getDb().thread.findUnique({ where: { id }, select: { userId: true } });
  return thread?.userId ?? null;
}

export type AttachmentRow = NonNullable<Awaited<ReturnType<typeof findAttachment>>>;
