import "server-only";
import type pg from "pg";
import type { MemoryFactModel } from "@/server/generated/prisma/models";

export type MemoryFactRow = Pick<MemoryFactModel, "key" | "value" | "updatedAt">;

// updated_at has no zone and holds UTC, as Prisma writes it.
const FACT_COLUMNS = `key, value, updated_at at time zone 'utc' as "updatedAt"`;

export async function listMemoryFacts({ userId }: { userId: string }, db: pg.ClientBase): Promise<MemoryFactRow[]> {
  const { rows } = await db.query<MemoryFactRow>(`select ${FACT_COLUMNS} from memory_facts where user_id = $1 order by key`, [userId]);
  return rows;
}

export async function upsertMemoryFact({ userId, key, value }: { userId: string; key: string; value: string }, db: pg.ClientBase): Promise<MemoryFactRow> {
  const { rows } = await db.query<MemoryFactRow>(
    `insert into memory_facts (id, user_id, key, value, updated_at) values (gen_random_uuid(), $1, $2, $3, now() at time zone 'utc')
     on conflict (user_id, key) do update set value = excluded.value, updated_at = excluded.updated_at
     returning ${FACT_COLUMNS}`,
    [userId, key, value],
  );
  return rows[0]!;
}

/** Forgets a fact; false when the user had none under `key`. */
export async function deleteMemoryFact({ userId, key }: { userId: string; key: string }, db: pg.ClientBase): Promise<boolean> {
  const { rowCount } = await db.query(`delete from memory_facts where user_id = $1 and key = $2`, [userId, key]);
  return rowCount === 1;
}
