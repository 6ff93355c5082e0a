import "server-only";
import { getPool } from "../db";
import type { AttachmentModel } from "../generated/prisma/models";

export type AttachmentRow = AttachmentModel;

const COLUMNS = `id, user_id as "userId", thread_id as "threadId", driver, bucket, path, mime_type as "mimeType", size, sha256, file_name as "fileName", text, created_at as "createdAt"`;

/** sha256 of an upload whose bytes the server has not seen yet (a presigned upload). */
export const UNVERIFIED_SHA256 = "";

export async function insertAttachment(data: Omit<AttachmentRow, "id" | "createdAt" | "text" | "fileName"> & { fileName?: string | null }): Promise<AttachmentRow> {
  const { rows } = await getPool().query<AttachmentRow>(
    `insert into attachments (id, user_id, thread_id, driver, bucket, path, mime_type, size, sha256, file_name)
     values (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9) returning ${COLUMNS}`,
    [data.userId, data.threadId, data.driver, data.bucket, data.path, data.mimeType, data.size, data.sha256, data.fileName ?? null],
  );
  return rows[0]!;
}

/** The attachment if it is this user's; someone else's is indistinguishable from none. */
export async function findAttachmentForUser({ bucket, path, userId }: { bucket: string; path: string; userId: string }): Promise<AttachmentRow | null> {
  const { rows } = await getPool().query<AttachmentRow>(`select ${COLUMNS} from attachments where bucket = $1 and path = $2 and user_id = $3`, [bucket, path, userId]);
  return rows[0] ?? null;
}

export async function findAttachment({ bucket, path }: { bucket: string; path: string }): Promise<AttachmentRow | null> {
  const { rows } = await getPool().query<AttachmentRow>(`select ${COLUMNS} from attachments where bucket = $1 and path = $2`, [bucket, path]);
  return rows[0] ?? null;
}

export async function markAttachmentVerified({ id, size, sha256 }: { id: string; size: number; sha256: string }): Promise<AttachmentRow | null> {
  const { rows } = await getPool().query<AttachmentRow>(`update attachments set size = $2, sha256 = $3 where id = $1 returning ${COLUMNS}`, [id, size, sha256]);
  return rows[0] ?? null;
}

/** Who owns a thread, or null when it does not exist yet (uploads may precede the thread's first run). */
export async function findThreadOwner({ id }: { id: string }): Promise<string | null> {
  const { rows } = await getPool().query<{ userId: string }>(`select user_id as "userId" from threads where id = $1`, [id]);
  return rows[0]?.userId ?? null;
}
