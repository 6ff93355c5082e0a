import "server-only";
import { getPool } from "../../db";
import type { RunnerStateModel, RunnerStorageModel } from "../../generated/prisma/models";

// What runners keep between runs: blobs in storage areas (runner_storage) and small JSON
// state values (runner_state), each row reached only through keys the host computes.

type StorageKey = Pick<RunnerStorageModel, "area" | "ownerKey" | "key">;
// bytea arrives from pg as a Buffer.
export type StoredValueRow = Pick<RunnerStorageModel, "size" | "updatedAt"> & { value: Buffer };

export async function findStoredValue(k: StorageKey): Promise<StoredValueRow | null> {
  const { rows } = await getPool().query<StoredValueRow>(
    `select value, size, updated_at as "updatedAt" from runner_storage where area = $1 and owner_key = $2 and key = $3`,
    [k.area, k.ownerKey, k.key],
  );
  return rows[0] ?? null;
}

export async function upsertStoredValue(k: StorageKey & { value: Buffer }): Promise<void> {
  await getPool().query(
    `insert into runner_storage (area, owner_key, key, value, size, updated_at) values ($1, $2, $3, $4, $5, now())
     on conflict (area, owner_key, key) do update set value = excluded.value, size = excluded.size, updated_at = now()`,
    [k.area, k.ownerKey, k.key, k.value, k.value.byteLength],
  );
}

export async function deleteStoredValue(k: StorageKey): Promise<boolean> {
  const { rowCount } = await getPool().query(`delete from runner_storage where area = $1 and owner_key = $2 and key = $3`, [k.area, k.ownerKey, k.key]);
  return (rowCount ?? 0) > 0;
}

/** Up to `limit` keys of the owner's area starting with `prefix` (all when null), in key order. */
export async function listStoredKeys(q: Omit<StorageKey, "key"> & { prefix: string | null; limit: number }): Promise<Pick<RunnerStorageModel, "key" | "size" | "updatedAt">[]> {
  const { rows } = await getPool().query<Pick<RunnerStorageModel, "key" | "size" | "updatedAt">>(
    `select key, size, updated_at as "updatedAt" from runner_storage
     where area = $1 and owner_key = $2 and ($3::text is null or starts_with(key, $3)) order by key limit $4`,
    [q.area, q.ownerKey, q.prefix, q.limit],
  );
  return rows;
}

export async function findStateValue({ keyHash }: { keyHash: string }): Promise<{ value: unknown } | null> {
  const { rows } = await getPool().query<{ value: unknown }>(`select value from runner_state where key_hash = $1`, [keyHash]);
  return rows[0] ?? null;
}

/** Stores `json` (already serialized and size-checked) under the key hash. */
export async function upsertStateValue(s: Pick<RunnerStateModel, "keyHash" | "bindingId" | "scope" | "scopeId" | "key"> & { json: string }): Promise<void> {
  await getPool().query(
    `insert into runner_state (key_hash, binding_id, scope, scope_id, key, value, size, updated_at) values ($1, $2, $3, $4, $5, $6::jsonb, $7, now())
     on conflict (key_hash) do update set value = excluded.value, size = excluded.size, updated_at = now()`,
    [s.keyHash, s.bindingId, s.scope, s.scopeId, s.key, s.json, Buffer.byteLength(s.json, "utf8")],
  );
}

export async function deleteStateValue({ keyHash }: { keyHash: string }): Promise<boolean> {
  const { rowCount } = await getPool().query(`delete from runner_state where key_hash = $1`, [keyHash]);
  return (rowCount ?? 0) > 0;
}

/** The binding's newest values in each (scope, scope id), at most `maxPerScope` per scope. */
export async function listStateValues<S extends string>(q: {
  bindingId: string;
  scopes: { scope: S; scopeId: string }[];
  maxPerScope: number;
}): Promise<{ scope: S; key: string; value: unknown }[]> {
  const { rows } = await getPool().query<{ scope: S; key: string; value: unknown }>(
    `select scope, key, value from (
       select scope, key, value, row_number() over (partition by scope order by updated_at desc) as n
       from runner_state where binding_id = $1 and (scope, scope_id) in (select * from unnest($2::text[], $3::text[]))
     ) s where n <= $4`,
    [q.bindingId, q.scopes.map((s) => s.scope), q.scopes.map((s) => s.scopeId), q.maxPerScope],
  );
  return rows;
}
