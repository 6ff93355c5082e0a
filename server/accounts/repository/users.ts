import "server-only";
import { getPool, withTransaction } from "../../db";
import { AppError } from "../../kernel/errors";
import type { UserRole } from "../../generated/prisma/enums";
import type { UserModel } from "../../generated/prisma/models";

export type PublicUser = Pick<UserModel, "id" | "email" | "name" | "role" | "createdAt" | "disabledAt" | "mustChangePassword">;

const PUBLIC_COLUMNS = `id, email, name, role, created_at as "createdAt", disabled_at as "disabledAt", must_change_password as "mustChangePassword"`;

export type UserWithCredentials = PublicUser & Pick<UserModel, "passwordHash" | "sessionVersion">;

export async function findUserByEmail({ email }: { email: string }): Promise<UserWithCredentials | null> {
  const { rows } = await getPool().query<UserWithCredentials>(
    `select ${PUBLIC_COLUMNS}, password_hash as "passwordHash", session_version as "sessionVersion" from users where email = $1`,
    [email],
  );
  return rows[0] ?? null;
}

export async function findUserWithPasswordById({ id }: { id: string }): Promise<UserWithCredentials | null> {
  const { rows } = await getPool().query<UserWithCredentials>(
    `select ${PUBLIC_COLUMNS}, password_hash as "passwordHash", session_version as "sessionVersion" from users where id = $1`,
    [id],
  );
  return rows[0] ?? null;
}

export type SessionUser = PublicUser & Pick<UserModel, "sessionVersion">;

/** What a browser session's check needs, read on every request that has one. */
export async function findSessionUser({ id }: { id: string }): Promise<SessionUser | null> {
  const { rows } = await getPool().query<SessionUser>({
    name: "dispatch-session-user",
    text: `select ${PUBLIC_COLUMNS}, session_version as "sessionVersion" from users where id = $1`,
    values: [id],
  });
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

/**
 * Deactivates or reactivates a user. Under one lock for every such change, so two admins
 * deactivating each other at once cannot leave no active admin: "last_admin" when this would.
 */
export async function updateUserDisabled({ id, disabled }: { id: string; disabled: boolean }): Promise<PublicUser | "last_admin" | null> {
  return withTransaction(async (client) => {
    await client.query(`select pg_advisory_xact_lock(hashtext('dispatch:active-admins'))`);
    if (disabled) {
      const { rows } = await client.query<{ lastAdmin: boolean }>(
        `select not exists (select 1 from users o where o.role = 'admin' and o.disabled_at is null and o.id <> u.id) as "lastAdmin"
         from users u where u.id = $1 and u.role = 'admin' and u.disabled_at is null`,
        [id],
      );
      if (rows[0]?.lastAdmin) return "last_admin";
    }
    const { rows } = await client.query<PublicUser>(
      `update users set disabled_at = case when $2 then coalesce(disabled_at, now()) end, updated_at = now() where id = $1 returning ${PUBLIC_COLUMNS}`,
      [id, disabled],
    );
    return rows[0] ?? null;
  });
}

/**
 * Sets a user's password and whether it is a one-time one they must replace. Every browser
 * session signed in before is void from its next request (the version it carries is stale).
 */
export async function updateUserPassword({ id, passwordHash, mustChange }: { id: string; passwordHash: string; mustChange: boolean }): Promise<SessionUser | null> {
  const { rows } = await getPool().query<SessionUser>(
    `update users set password_hash = $2, must_change_password = $3, session_version = session_version + 1, updated_at = now()
     where id = $1 returning ${PUBLIC_COLUMNS}, session_version as "sessionVersion"`,
    [id, passwordHash, mustChange],
  );
  return rows[0] ?? null;
}
