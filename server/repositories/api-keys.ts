import "server-only";
import { getDb, getPool } from "../db";

const keyView = { id: true, userId: true, name: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true } as const;

export function insertApiKey(data: { userId: string; name: string; prefix: string; keyHash: string }) {
  return getDb().apiKey.create({ data, select: keyView });
}

export type ApiKeyAuthRow = {
  id: string;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  userId: string;
  email: string;
  role: "user" | "admin";
};

/** The key with this hash and its user, in one plain query: every API request runs it. */
export async function findApiKeyByHash({ keyHash }: { keyHash: string }): Promise<ApiKeyAuthRow | null> {
  const { rows } = await getPool().query<ApiKeyAuthRow>({
    name: "dispatch-api-key-by-hash",
    text: `select k.id, k.revoked_at as "revokedAt", k.last_used_at as "lastUsedAt", u.id as "userId", u.email, u.role
     from api_keys k join users u on u.id = k.user_id where k.key_hash = $1`,
    values: [keyHash],
  });
  return rows[0] ?? null;
}

export function listApiKeysForUser({ userId }: { userId: string }) {
  return getDb().apiKey.findMany({ where: { userId }, select: keyView, orderBy: { createdAt: "desc" }, take: 200 });
}

export async function listApiKeysPage({ cursor, limit, userId }: { cursor?: string; limit: number; userId?: string }) {
  const rows = await getDb().apiKey.findMany({
    where: userId ? { userId } : {},
    select: { ...keyView, user: { select: { email: true } } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
    ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
  });
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  return { items, nextCursor: hasMore ? items.at(-1)?.id ?? null : null };
}

export function markApiKeyRevoked({ id }: { id: string }) {
  return getDb().apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
}

export function findApiKeyById({ id }: { id: string }) {
  return getDb().apiKey.findUnique({ where: { id }, select: keyView });
}

/** Records a use at `at` unless one was recorded since `notBefore` (by this or another instance). */
export async function touchApiKey({ id, at, notBefore }: { id: string; at: Date; notBefore: Date }): Promise<void> {
  await getPool().query(`update api_keys set last_used_at = $2 where id = $1 and (last_used_at is null or last_used_at < $3)`, [id, at, notBefore]);
}
