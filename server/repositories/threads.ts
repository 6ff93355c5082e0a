import "server-only";
import type pg from "pg";
import { getPool } from "../db";

export type ThreadRow = { id: string; userId: string; title: string; createdAt: Date; updatedAt: Date };

/**
 * Creates the thread for `userId` if it does not exist, then locks it for this transaction, in one
 * round trip: `on conflict do update` takes the row lock (waiting for a concurrent holder) and
 * returns the row either way; it changes nothing on an existing thread.
 */
export async function lockOrCreateThread(
  { id, userId, title }: { id: string; userId: string; title: string },
  db: pg.PoolClient,
): Promise<ThreadRow> {
  const { rows } = await db.query<ThreadRow>(
    `insert into threads (id, user_id, title, updated_at) values ($1, $2, $3, now())
     on conflict (id) do update set title = threads.title
     returning id, user_id as "userId", title, created_at as "createdAt", updated_at as "updatedAt"`,
    [id, userId, title],
  );
  return rows[0]!;
}

export async function findThreadForUser({ id, userId }: { id: string; userId: string }): Promise<ThreadRow | null> {
  const { rows } = await getPool().query<ThreadRow>(
    `select id, user_id as "userId", title, created_at as "createdAt", updated_at as "updatedAt" from threads where id = $1 and user_id = $2`,
    [id, userId],
  );
  return rows[0] ?? null;
}
