import "server-only";
import type pg from "pg";

// The record of what each project_cli write did (tool_effects). Every statement runs on the
// connection, and inside the transaction, of the write it records (server/tools/project-cli/effects.ts).

export type ToolEffectKey = { userId: string; runId: string; toolCallId: string };

/** What an earlier call with the same key asked for and answered. */
export type RecordedToolEffect = { action: string; inputHash: string; output: unknown };

/**
 * Claims the key for this transaction; true when it is ours to run. A concurrent claim of the same
 * key waits here until the first transaction ends: when that one commits, this one gets false and
 * reads its answer; when it rolls back (nothing was done), this one runs.
 */
export async function claimToolEffect(key: ToolEffectKey & { action: string; inputHash: string }, db: pg.ClientBase): Promise<boolean> {
  const { rowCount } = await db.query({
    name: "dispatch-tool-effect-claim",
    text: `insert into tool_effects (user_id, run_id, tool_call_id, action, input_hash) values ($1, $2, $3, $4, $5)
           on conflict (user_id, run_id, tool_call_id) do nothing`,
    values: [key.userId, key.runId, key.toolCallId, key.action, key.inputHash],
  });
  return rowCount === 1;
}

/** The committed record of the key; its output is never null once committed. */
export async function findToolEffect(key: ToolEffectKey, db: pg.ClientBase): Promise<RecordedToolEffect | null> {
  const { rows } = await db.query<RecordedToolEffect>({
    name: "dispatch-tool-effect-find",
    text: `select action, input_hash as "inputHash", output from tool_effects where user_id = $1 and run_id = $2 and tool_call_id = $3`,
    values: [key.userId, key.runId, key.toolCallId],
  });
  return rows[0] ?? null;
}

/** Stores the answer of the claimed key, in the transaction that did the write. */
export async function recordToolEffectOutput(key: ToolEffectKey & { output: unknown }, db: pg.ClientBase): Promise<void> {
  await db.query({
    name: "dispatch-tool-effect-record",
    text: `update tool_effects set output = $4 where user_id = $1 and run_id = $2 and tool_call_id = $3`,
    values: [key.userId, key.runId, key.toolCallId, JSON.stringify(key.output)],
  });
}
