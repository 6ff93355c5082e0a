import "server-only";
import { MAX_STORAGE_VALUE_BYTES, type StorageArea } from "../../../protocols/runner/host-api";
import { deleteStoredValue, findStoredValue, listStoredKeys, upsertStoredValue } from "../../repository/storage";
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

export const getStored: JsonHandler<"storage/get"> = async ({ params, session }) => {
  const row = await findStoredValue({ area: params.area, ownerKey: owner(session, params.area), key: params.key });
  return {
    area: params.area,
    key: params.key,
    found: row !== null,
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
  await upsertStoredValue({ area: params.area, ownerKey: owner(session, params.area), key: params.key, value });
  return { area: params.area, key: params.key, size: value.byteLength };
};

export const deleteStored: JsonHandler<"storage/delete"> = async ({ params, session }) => {
  const deleted = await deleteStoredValue({ area: params.area, ownerKey: owner(session, params.area), key: params.key });
  return { area: params.area, key: params.key, deleted };
};

export const listStored: JsonHandler<"storage/list"> = async ({ params, session }) => {
  const rows = await listStoredKeys({ area: params.area, ownerKey: owner(session, params.area), prefix: params.prefix ?? null, limit: params.limit + 1 });
  return {
    area: params.area,
    items: rows.slice(0, params.limit).map((r) => ({ key: r.key, size: r.size, updated_at: r.updatedAt.getTime() / 1000 })),
    truncated: rows.length > params.limit,
  };
};
