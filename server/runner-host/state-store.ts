import "server-only";
import { createHash } from "node:crypto";
import { AppError } from "../kernel/errors";
import type { StateScope } from "../protocols/runner/context";
import { MAX_STATE_VALUE_BYTES } from "../protocols/runner/result";
import { deleteStateValue, findStateValue, listStateValues, upsertStateValue } from "./repository/storage";

// PersistentStateStore: small JSON values per (binding, scope, scope id, key). The row id is a
// hash over all four, so one binding can never name, guess or read another's state.

/** Which id each scope is keyed by for one run. */
export type StateScopeIds = Record<StateScope, string>;

/** For one run: the conversation is the thread, the actor the user, the subject the entry event. */
export function stateScopeIds(run: { threadId: string; userId: string; eventId: string; runnerId: string; bindingId: string }): StateScopeIds {
  return { conversation: run.threadId, actor: run.userId, subject: run.eventId, runner: run.runnerId, binding: run.bindingId };
}

export function stateKeyHash(opts: { bindingId: string; scope: StateScope; scopeId: string; key: string }): string {
  return createHash("sha256").update(`${opts.bindingId}\u0000${opts.scope}\u0000${opts.scopeId}\u0000${opts.key}`).digest("hex");
}

/** JSON text of a state value, or an INVALID_ARGUMENT / PAYLOAD_TOO_LARGE error naming what to fix. */
export function serializeStateValue(value: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    json = undefined;
  }
  if (json === undefined) throw new AppError("BAD_REQUEST", "State value must be JSON-serializable (no functions, undefined or cycles)");
  const size = Buffer.byteLength(json, "utf8");
  if (size > MAX_STATE_VALUE_BYTES) {
    throw new AppError("PAYLOAD_TOO_LARGE", `State value is ${size} bytes; the limit is ${MAX_STATE_VALUE_BYTES} bytes (256 KiB)`);
  }
  return json;
}

export async function getState(opts: { bindingId: string; scope: StateScope; scopeId: string; key: string }): Promise<{ exists: boolean; value: unknown }> {
  const row = await findStateValue({ keyHash: stateKeyHash(opts) });
  return row ? { exists: true, value: row.value } : { exists: false, value: null };
}

export async function setState(opts: { bindingId: string; scope: StateScope; scopeId: string; key: string; value: unknown }): Promise<void> {
  const json = serializeStateValue(opts.value);
  await upsertStateValue({ keyHash: stateKeyHash(opts), bindingId: opts.bindingId, scope: opts.scope, scopeId: opts.scopeId, key: opts.key, json });
}

export async function deleteState(opts: { bindingId: string; scope: StateScope; scopeId: string; key: string }): Promise<boolean> {
  return deleteStateValue({ keyHash: stateKeyHash(opts) });
}

/** The snapshot a run starts with: every key of this binding in the run's scopes, capped per scope. */
export async function loadStateSnapshot(opts: {
  bindingId: string;
  scopes: readonly StateScope[];
  ids: StateScopeIds;
  maxKeysPerScope?: number;
}): Promise<Record<StateScope, Record<string, unknown>>> {
  const snapshot: Record<StateScope, Record<string, unknown>> = { conversation: {}, actor: {}, subject: {}, runner: {}, binding: {} };
  if (opts.scopes.length === 0) return snapshot;
  const rows = await listStateValues({
    bindingId: opts.bindingId,
    scopes: opts.scopes.map((scope) => ({ scope, scopeId: opts.ids[scope] })),
    maxPerScope: opts.maxKeysPerScope ?? 100,
  });
  for (const r of rows) snapshot[r.scope][r.key] = r.value;
  return snapshot;
}
