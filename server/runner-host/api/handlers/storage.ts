import "server-only";
import { getPool } from "../../../db";
import { MAX_STORAGE_VALUE_BYTES, type StorageArea } from "../../../protocols/runner/host-api";
import type { JsonHandler } from "../call";
import { HostApiFailure } from "../failure";
import type { RunSession } from "../session";

// storage/*: blobs in runner_storage under an area's owner: plugin → the runner's endpoint
// (shared by its runs everywhere), workspace → the run's user, binding → the run's binding.

function owner(session: RunSession, area: StorageArea): string {
  switch (area) {
    case "plugin":
      return session.endpointId;
    case "workspace":
      return session.userId;
    case "binding":
      if (session.bindingId === null) throw new HostApiFailure("unauthorized", "The binding storage area needs a binding; this run has none");
      return session.bindingId;
  }
}

type StoredRow = { value: Buffer; size: number; updatedAt: Date };

export const getStored: JsonHandler<"storage/get"> = async ({ params, session }) => {
  const { rows } = await getPool().query<StoredRow>(
    `select value, size, updated_at as "updatedAt" from runner_storage where area = $1 and owner_key = $2 and key = $3`,
    [params.area, owner(session, params.area), params.key],
  );
  const row = rows[0];
  return {
    area: params.area,
    key: params.key,
    found: row !== undefined,
    value_base64: row ? row.value.toString("base64") : null,
    size: row?.size ?? null,
    updated_at: row ? row.updatedAt.getTime() / 1000 : null,
  };
};

export const setStored: JsonHandler<"storage/set"> = async ({ params, session }) => {
  const value = Buffer.from(params.value_base64, "base64");
  if (value.byteLength > MAX_STORAGE_VALUE_BYTES) {
    throw new HostApiFailure("payload_too_large", `The value is ${value.byteLength} bytes; a storage value may be at most ${MAX_STORAGE_VALUE_BYTES} bytes`, {
      details: { limit_bytes: MAX_STORAGE_VALUE_BYTES },
    });
  }
  await getPool().query(
    `insert into runner_storage (area, owner_key, key, value, size, updated_at) values ($1, $2, $3, $4, $5, now())
     on conflict (area, owner_key, key) do update set value = excluded.value, size = excluded.size, updated_at = now()`,
    [params.area, owner(session, params.area), params.key, value, value.byteLength],
  );
  return { area: params.area, key: params.key, size: value.byteLength };
};

export const deleteStored: JsonHandler<"storage/delete"> = async ({ params, session }) => {
  const { rowCount } = await getPool().query(`delete from runner_storage where area = $1 and owner_key = $2 and key = $3`, [
    params.area,
    owner(session, params.area),
    params.key,
  ]);
  return { area: params.area, key: params.key, deleted: (rowCount ?? 0) > 0 };
};

export const listStored: JsonHandler<"storage/list"> = async ({ params, session }) => {
  const { rows } = await getPool().query<{ key: string; size: number; updatedAt: Date }>(
    `select key, size, updated_at as "updatedAt" from runner_storage
     where area = $1 and owner_key = $2 and ($3::text is null or starts_with(key, $3)) order by key limit $4`,
    [params.area, owner(session, params.area), params.prefix ?? null, params.limit + 1],
  );
  return {
    area: params.area,
    items: rows.slice(0, params.limit).map((r) => ({ key: r.key, size: r.size, updated_at: r.updatedAt.getTime() / 1000 })),
    truncated: rows.length > params.limit,
  };
};
