import "server-only";
import type pg from "pg";

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
