import "server-only";
import type pg from "pg";
import { getPool } from "@/server/db";
import { likePattern } from "@/server/kernel/sql";
import type { ContactData } from "./data";

export type NewContact = Omit<ContactData, "id">;

/** The user's contacts whose name, email or company contains `query`, by name, and how many match in all. */
export async function searchContacts(
  { ownerId, query, limit }: { ownerId: string; query: string | null; limit: number },
  db: pg.ClientBase,
): Promise<{ items: ContactData[]; total: number }> {
  const pattern = query === null ? null : likePattern(query);
  const { rows } = await db.query<ContactData & { total: string }>(
    `select id, name, email, phone, company, job_title, notes, count(*) over () as total
     from contacts
     where owner_id = $1 and ($2::text is null or name ilike $2 or email ilike $2 or company ilike $2)
     order by lower(name), id limit $3`,
    [ownerId, pattern, limit],
  );
  return { items: rows.map(({ total: _total, ...c }) => c), total: rows.length > 0 ? Number(rows[0]!.total) : 0 };
}

/** Adds the contacts the user does not have yet (by name); returns how many were added. `db`: the app's pool unless a tool call's connection is given. */
export async function insertMissingContacts(
  { ownerId, contacts }: { ownerId: string; contacts: NewContact[] },
  db: pg.ClientBase | pg.Pool = getPool(),
): Promise<number> {
  const { rowCount } = await db.query(
    `insert into contacts (id, owner_id, name, email, phone, company, job_title, notes, updated_at)
     select gen_random_uuid(), $1, c.name, c.email, c.phone, c.company, c.job_title, c.notes, now() at time zone 'utc'
     from jsonb_to_recordset($2::jsonb) as c(name text, email text, phone text, company text, job_title text, notes text)
     where not exists (select 1 from contacts x where x.owner_id = $1 and x.name = c.name)`,
    [ownerId, JSON.stringify(contacts)],
  );
  return rowCount ?? 0;
}
