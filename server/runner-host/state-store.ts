import "server-only";
import { createHash } from "node:crypto";
import { getPool } from "../db";
import { AppError } from "../errors";
import type { StateScope } from "../protocols/runner/context";
import { MAX_STATE_VALUE_BYTES } from "../protocols/runner/result";

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
  const { rows } = await getPool().query<{ value: unknown }>(`select value from runner_state where key_hash = $1`, [stateKeyHash(opts)]);
  return rows[0] ? { exists: true, value: rows[0].value } : { exists: false, value: null };
}

export async function setState(opts: { bindingId: string; scope: StateScope; scopeId: string; key: string; value: unknown }): Promise<void> {
  const json = serializeStateValue(opts.value);
  await getPool().query(
    `insert into runner_state (key_hash, binding_id, scope, scope_id, key, value, size, updated_at) values ($1, $2, $3, $4, $5, $6::jsonb, $7, now())
     on conflict (key_hash) do update set value = excluded.value, size = excluded.size, updated_at = now()`,
    [stateKeyHash(opts), opts.bindingId, opts.scope, opts.scopeId, opts.key, json, Buffer.byteLength(json, "utf8")],
  );
}

export async function deleteState(opts: { bindingId: string; scope: StateScope; scopeId: string; key: string }): Promise<boolean> {
  const { rowCount } = await getPool().query(`delete from runner_state where key_hash = $1`, [stateKeyHash(opts)]);
  return (rowCount ?? 0) > 0;
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
  const { rows } = await getPool().query<{ scope: StateScope; key: string; value: unknown }>(
    `select scope, key, value from (
       select scope, key, value, row_number() over (partition by scope order by updated_at desc) as n
       from runner_state where binding_id = $1 and (scope, scope_id) in (select * from unnest($2::text[], $3::text[]))
     ) s where n <= $4`,
    [opts.bindingId, [...opts.scopes], opts.scopes.map((s) => opts.ids[s]), opts.maxKeysPerScope ?? 100],
  );
  for (const r of rows) snapshot[r.scope][r.key] = r.value;
  return snapshot;
}
