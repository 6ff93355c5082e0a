import "server-only";
import { getPool } from "../../db";
import type { ApiKeyModel, UserModel } from "../../generated/prisma/models";

export type ApiKeyView = Pick<ApiKeyModel, "id" | "userId" | "name" | "prefix" | "createdAt" | "lastUsedAt" | "revokedAt" | "autoApprove">;

const VIEW_COLUMNS = `k.id, k.user_id as "userId", k.name, k.prefix, k.created_at as "createdAt", k.last_used_at as "lastUsedAt", k.revoked_at as "revokedAt", k.auto_approve as "autoApprove"`;

export async function insertApiKey(data: { userId: string; name: string; prefix: string; keyHash: string; autoApprove: boolean }): Promise<ApiKeyView> {
  const { rows } = await getPool().query<ApiKeyView>(
    `insert into api_keys as k (id, user_id, name, prefix, key_hash, auto_approve) values (gen_random_uuid(), $1, $2, $3, $4, $5) returning ${VIEW_COLUMNS}`,
    [data.userId, data.name, data.prefix, data.keyHash, data.autoApprove],
  );
  return rows[0]!;
}

export type ApiKeyAuthRow = Pick<ApiKeyModel, "id" | "revokedAt" | "lastUsedAt" | "userId"> & Pick<UserModel, "email" | "role" | "disabledAt">;

/** The key with this hash and its user, in one plain query: every API request runs it. */
export async function findApiKeyByHash({ keyHash }: { keyHash: string }): Promise<ApiKeyAuthRow | null> {
  const { rows } = await getPool().query<ApiKeyAuthRow>({
    name: "dispatch-api-key-by-hash",
    text: `select k.id, k.revoked_at as "revokedAt", k.last_used_at as "lastUsedAt", u.id as "userId", u.email, u.role, u.disabled_at as "disabledAt"
     from api_keys k join users u on u.id = k.user_id where k.key_hash = $1`,
    values: [keyHash],
  });
  return rows[0] ?? null;
}

export async function listApiKeysForUser({ userId }: { userId: string }): Promise<ApiKeyView[]> {
  const { rows } = await getPool().query<ApiKeyView>(`select ${VIEW_COLUMNS} from api_keys k where k.user_id = $1 order by k.created_at desc limit 200`, [userId]);
  return rows;
}

export async function listApiKeysPage({ cursor, limit, userId }: { cursor?: string; limit: number; userId?: string }) {
  // Newest first; the page after `cursor` continues the (created_at, id) order (an unknown cursor ends it).
  const { rows } = await getPool().query<ApiKeyView & { email: string }>(
    `select ${VIEW_COLUMNS}, u.email from api_keys k join users u on u.id = k.user_id
     where ($1::uuid is null or k.user_id = $1::uuid)
       and ($2::uuid is null or (k.created_at, k.id) < (select c.created_at, c.id from api_keys c where c.id = $2::uuid))
     order by k.created_at desc, k.id desc limit $3`,
    [userId ?? null, cursor ?? null, limit + 1],
  );
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit).map(({ email, ...key }) => ({ ...key, user: { email } }));
  return { items, nextCursor: hasMore ? items.at(-1)?.id ?? null : null };
}

export async function markApiKeyRevoked({ id }: { id: string }): Promise<{ count: number }> {
  const { rowCount } = await getPool().query(`update api_keys set revoked_at = now() where id = $1 and revoked_at is null`, [id]);
  return { count: rowCount ?? 0 };
}

export async function setApiKeyAutoApprove({ id, autoApprove }: { id: string; autoApprove: boolean }): Promise<ApiKeyView | null> {
  const { rows } = await getPool().query<ApiKeyView>(`update api_keys k set auto_approve = $2 where k.id = $1 returning ${VIEW_COLUMNS}`, [id, autoApprove]);
  return rows[0] ?? null;
}

export async function findApiKeyById({ id }: { id: string }): Promise<ApiKeyView | null> {
  const { rows } = await getPool().query<ApiKeyView>(`select ${VIEW_COLUMNS} from api_keys k where k.id = $1`, [id]);
  return rows[0] ?? null;
}

/** Records a use at `at` unless one was recorded since `notBefore` (by this or another instance). */
export async function touchApiKey({ id, at, notBefore }: { id: string; at: Date; notBefore: Date }): Promise<void> {
  await getPool().query(`update api_keys set last_used_at = $2 where id = $1 and (last_used_at is null or last_used_at < $3)`, [id, at, notBefore]);
}
