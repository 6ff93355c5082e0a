import "server-only";
import type pg from "pg";
import type { ReadDb } from "../db-replicas";

// Small helpers every repository's SQL shares.

/** A pooled query target: the pool itself, or one connection inside a transaction. */
export type Db = pg.Pool | pg.PoolClient;

/** `text` with LIKE's wildcards (and its escape character) taken literally. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** An ILIKE pattern matching `text` anywhere, with its wildcards taken literally. */
export function likePattern(text: string): string {
  return `%${escapeLike(text)}%`;
}

/** A WHERE clause under construction: conditions and the parameters they name ($1, $2, ...). */
export type SqlFilters = { where: string[]; params: unknown[]; param: (value: unknown) => string };

export function sqlFilters(): SqlFilters {
  const params: unknown[] = [];
  return { where: [], params, param: (value) => `$${params.push(value)}` };
}

/**
 * One newest-first page by keyset (`orderAt desc, orderId desc`), one row more than `limit` so the
 * caller knows whether another page follows. The cursor's timestamp went through the driver as
 * local wall time; `::timestamp` keeps it so.
 */
export async function newestFirstPage<Row extends pg.QueryResultRow>(
  db: ReadDb,
  filters: SqlFilters,
  q: { select: string; from: string; orderAt: string; orderId: string; after: { at: Date; id: string } | null; limit: number },
): Promise<Row[]> {
  const { where, param } = filters;
  if (q.after) where.push(`(${q.orderAt}, ${q.orderId}) < (${param(q.after.at)}::timestamp, ${param(q.after.id)}::uuid)`);
  const { rows } = await db.query<Row>(
    `select ${q.select} from ${q.from} ${where.length ? `where ${where.join(" and ")}` : ""}
     order by ${q.orderAt} desc, ${q.orderId} desc limit ${param(q.limit + 1)}`,
    filters.params,
  );
  return rows;
}
