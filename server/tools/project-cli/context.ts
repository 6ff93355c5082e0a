import type pg from "pg";

/** What a handler runs with: the user the credential names, one connection, the user's zone. */
export type ToolContext = {
  userId: string;
  // One connection, not a pool, so a handler's transaction stays on it.
  db: pg.ClientBase;
  timeZone: string;
  /**
   * Set when the caller already holds a transaction on `db` that commits the handler's writes
   * together with the record of its answer (a write, effects.ts), and rolls them back on failure.
   */
  inEffect?: true;
};

/** Runs `fn` in a transaction on the context's connection (the write's own one, when it has one). */
export async function inTransaction<T>(ctx: ToolContext, fn: () => Promise<T>): Promise<T> {
  if (ctx.inEffect) return fn();
  await ctx.db.query("begin");
  try {
    const result = await fn();
    await ctx.db.query("commit");
    return result;
  } catch (err) {
    await ctx.db.query("rollback").catch(() => {});
    throw err;
  }
}
