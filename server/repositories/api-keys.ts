import "server-only";
import { getDb } from "../db";

const keyView = { id: true, userId: true, name: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true } as const;

export function insertApiKey(data: { userId: string; name: string; prefix: string; keyHash: string }) {
  return getDb().apiKey.create({ data, select: keyView });
}

export function findApiKeyByHash({ keyHash }: { keyHash: string }) {
  return getDb().apiKey.findUnique({
    where: { keyHash },
    select: { ...keyView, user: { select: { id: true, email: true, name: true, role: true } } },
  });
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

export function touchApiKey({ id, at }: { id: string; at: Date }) {
  return getDb().apiKey.update({ where: { id }, data: { lastUsedAt: at }, select: { id: true } });
}
