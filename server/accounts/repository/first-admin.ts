import "server-only";
import { withTransaction } from "../../db";

// Instances of a fresh deployment start at once and each tries to create the first admin: a
// transaction-scoped advisory lock makes them take turns, and the insert happens only while the
// users table is empty, so exactly one admin is created, once, ever.
const FIRST_ADMIN_LOCK = "dispatch:first-admin";

/** Inserts the admin when there is no user yet; its id, or null when someone was there first. */
export async function insertFirstAdmin(data: { email: string; passwordHash: string }): Promise<string | null> {
  return withTransaction(async (client) => {
    await client.query("select pg_advisory_xact_lock(hashtext($1))", [FIRST_ADMIN_LOCK]);
    const { rows } = await client.query<{ id: string }>(
      `insert into users (id, email, password_hash, role, updated_at)
       select gen_random_uuid(), $1, $2, 'admin', now() where not exists (select 1 from users)
       returning id`,
      [data.email, data.passwordHash],
    );
    return rows[0]?.id ?? null;
  });
}
