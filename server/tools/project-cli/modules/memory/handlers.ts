import "server-only";
import { inTransaction, type ToolContext } from "../../context";
import { deleteMemoryFact, listMemoryFacts, upsertMemoryFact, type MemoryFactRow } from "./repository";
import type { MemoryFactData, MemoryReadData, MemoryUpdateData } from "./data";
import type { MemoryUpdateInput } from "./schemas";

const toFact = (row: MemoryFactRow): MemoryFactData => ({ key: row.key, value: row.value, updated_at: row.updatedAt.toISOString() });

export async function readMemory(ctx: ToolContext): Promise<MemoryReadData> {
  const facts = (await listMemoryFacts({ userId: ctx.userId }, ctx.db)).map(toFact);
  return { facts, count: facts.length };
}

// memory.update: all facts of one call are written together or not at all; when a key
// appears twice, the last value wins, as if written in order.
export async function updateMemory(ctx: ToolContext, input: MemoryUpdateInput): Promise<MemoryUpdateData> {
  const facts = "facts" in input ? input.facts : [input];
  const latest = new Map(facts.map((f) => [f.key, f.value]));
  return inTransaction(ctx, async () => {
    const result: MemoryUpdateData = { written: [], forgotten: [], not_found: [] };
    for (const [key, value] of latest) {
      if (value !== null) result.written.push(toFact(await upsertMemoryFact({ userId: ctx.userId, key, value }, ctx.db)));
      else if (await deleteMemoryFact({ userId: ctx.userId, key }, ctx.db)) result.forgotten.push(key);
      else result.not_found.push(key);
    }
    return result;
  });
}
