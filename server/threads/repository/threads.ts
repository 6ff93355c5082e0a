import "server-only";
import { getPool } from "../../db";
import type { ThreadModel } from "../../generated/prisma/models";

export type ThreadRow = Pick<ThreadModel, "id" | "userId" | "title" | "createdAt" | "updatedAt">;

export async function findThreadForUser({ id, userId }: { id: string; userId: string }): Promise<ThreadRow | null> {
  const { rows } = await getPool().query<ThreadRow>(
    `select id, user_id as "userId", title, created_at as "createdAt", updated_at as "updatedAt" from threads where id = $1 and user_id = $2`,
    [id, userId],
  );
  return rows[0] ?? null;
}
