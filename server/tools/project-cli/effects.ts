import "server-only";
import { createHash } from "node:crypto";
import { claimToolEffect, findToolEffect, recordToolEffectOutput, type RecordedToolEffect, type ToolEffectKey } from "@/server/tools/repository/tool-effects";
import type { ToolContext } from "./context";
import { ToolError } from "./errors";
import type { CliOutput } from "./router";

// Writes happen once per tool call. A run's step may be repeated after the process executing it
// died, and a runner may retry tools/call: both repeat the call with its tool call id. So a write
// claims its key (user, the run the call was made in, the call's id) in a transaction, runs its
// handler in that same transaction, stores its answer and commits: the change and the record
// of it commit together or not at all. A repeat finds the record and answers it without running
// anything; a repeat while the first is still running waits on the claim, then answers the same.
// Reads are not recorded: repeating one changes nothing.

export type WriteCall = { key: ToolEffectKey; action: string; input: unknown; ctx: ToolContext; run: (ctx: ToolContext) => Promise<CliOutput> };

const hashInput = (input: unknown) => createHash("sha256").update(JSON.stringify(input) ?? "null").digest("base64url");

/** Runs a write at most once for its key and answers every call with the first answer. */
export async function runWriteOnce({ key, action, input, ctx, run }: WriteCall): Promise<CliOutput> {
  const { db } = ctx;
  const inputHash = hashInput(input);
  let earlier: RecordedToolEffect | null = null;
  let output: CliOutput | null = null;
  await db.query("begin");
  try {
    if (await claimToolEffect({ ...key, action, inputHash }, db)) {
      // A handler that refuses (a ToolError, answered as ok: false) leaves nothing of what it
      // began; its refusal is the answer a repeat gets.
      await db.query("savepoint handler");
      output = await run({ ...ctx, inEffect: true });
      if (!output.ok) await db.query("rollback to savepoint handler");
      await recordToolEffectOutput({ ...key, output }, db);
    } else earlier = await findToolEffect(key, db);
    await db.query("commit");
  } catch (err) {
    await db.query("rollback").catch(() => {});
    throw err;
  }
  if (output) return output;
  // A claim that lost found the committed record of the call that won.
  if (!earlier || earlier.action !== action || earlier.inputHash !== inputHash) {
    throw new ToolError("TOOL_CALL_ID_REUSED", "This tool call id was already used for another call in this run; give each call its own id");
  }
  return earlier.output as CliOutput;
}
