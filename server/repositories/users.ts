import "server-only";
import { getPool } from "../db";
import { AppError } from "../errors";
import type { UserRole } from "../generated/prisma/enums";
import type { UserModel } from "../generated/prisma/models";

export type PublicUser = Pick<UserModel, "id" | "email" | "name" | "role" | "createdAt">;

const PUBLIC_COLUMNS = `id, email, name, role, created_at as "createdAt"`;

export async function findUserByEmail({ email }: { email: string }): Promise<(PublicUser & Pick<UserModel, "passwordHash">) | null> {
  const { rows } = await getPool().query<PublicUser & Pick<UserModel, "passwordHash">>(
    `select ${PUBLIC_COLUMNS}, password_hash as "passwordHash" from users where email = $1`,
    [email],
  );
  return rows[0] ?? null;
}

export async function findUserById({ id }: { id: string }): Promise<PublicUser | null> {
  const { rows } = await getPool().query<PublicUser>(`select ${PUBLIC_COLUMNS} from users where id = $1`, [id]);
  return rows[0] ?? null;
}

export async function insertUser(data: { email: string; name?: string | null; passwordHash: string; role: UserRole }): Promise<PublicUser> {
  const { rows } = await getPool().query<PublicUser>(
    `insert into users (id, email, name, password_hash, role, updated_at) values (gen_random_uuid(), $1, $2, $3, $4, now())
     returning ${PUBLIC_COLUMNS}`,
    [data.email, data.name ?? null, data.passwordHash, data.role],
  );
  return rows[0]!;
}

export async function countUsers(): Promise<number> {
  const { rows } = await getPool().query<{ count: number }>(`select count(*)::int as count from users`);
  return rows[0]!.count;
}

export async function listUsersPage({ cursor, limit }: { cursor?: string; limit: number }) {
  // Newest first; the page after `cursor` continues the (created_at, id) order (an unknown cursor ends it).
  const { rows } = await getPool().query<PublicUser & { activeApiKeys: number }>(
    `select ${PUBLIC_COLUMNS},
       (select count(*)::int from api_keys k where k.user_id = u.id and k.revoked_at is null) as "activeApiKeys"
     from users u
     where $1::uuid is null or (u.created_at, u.id) < (select c.created_at, c.id from users c where c.id = $1::uuid)
     order by u.created_at desc, u.id desc limit $2`,
    [cursor ?? null, limit + 1],
  );
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  return { items, nextCursor: hasMore ? items.at(-1)?.id ?? null : null };
}

export async function updateUserRole({ id, role }: { id: string; role: UserRole }): Promise<PublicUser> {
  const { rows } = await getPool().query<PublicUser>(`update users set role = $2, updated_at = now() where id = $1 returning ${PUBLIC_COLUMNS}`, [id, role]);
  if (!rows[0]) throw new AppError("NOT_FOUND", "User not found");
  return rows[0];
}
