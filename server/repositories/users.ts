import "server-only";
import { getDb } from "../db";
import type { UserRole } from "../generated/prisma/enums";

const publicUser = { id: true, email: true, name: true, role: true, createdAt: true } as const;

export function findUserByEmail({ email }: { email: string }) {
  return getDb().user.findUnique({ where: { email }, select: { ...publicUser, passwordHash: true } });
}

export function findUserById({ id }: { id: string }) {
  return getDb().user.findUnique({ where: { id }, select: publicUser });
}

export function insertUser(data: { email: string; name?: string | null; passwordHash: string; role: UserRole }) {
  return getDb().user.create({ data, select: publicUser });
}

export function countUsers() {
  return getDb().user.count();
}

export async function listUsersPage({ cursor, limit }: { cursor?: string; limit: number }) {
  const rows = await getDb().user.findMany({
    select: { ...publicUser, _count: { select: { apiKeys: { where: { revokedAt: null } } } } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
    ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
  });
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit).map(({ _count, ...u }) => ({ ...u, activeApiKeys: _count.apiKeys }));
  return { items, nextCursor: hasMore ? items.at(-1)?.id ?? null : null };
}

export function updateUserRole({ id, role }: { id: string; role: UserRole }) {
  return getDb().user.update({ where: { id }, data: { role }, select: publicUser });
}
