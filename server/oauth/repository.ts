import "server-only";
import { getPool } from "@/server/db";

// The OAuth tables (prisma/schema.prisma: oauth_clients, oauth_codes, oauth_grants,
// oauth_tokens). Codes and tokens arrive here already hashed; lifetimes are seconds from the
// database's own clock.

export type ClientRow = { id: string; name: string; redirectUris: string[] };

export async function insertClient(data: { name: string; redirectUris: string[] }): Promise<ClientRow & { createdAt: Date }> {
  const { rows } = await getPool().query<ClientRow & { createdAt: Date }>(
    `insert into oauth_clients (id, name, redirect_uris) values (gen_random_uuid(), $1, $2)
     returning id, name, redirect_uris as "redirectUris", created_at as "createdAt"`,
    [data.name, data.redirectUris],
  );
  return rows[0]!;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function findClient({ id }: { id: string }): Promise<ClientRow | null> {
  if (!UUID.test(id)) return null;
  const { rows } = await getPool().query<ClientRow>(`select id, name, redirect_uris as "redirectUris" from oauth_clients where id = $1`, [id]);
  return rows[0] ?? null;
}

export async function insertCode(data: { codeHash: string; clientId: string; userId: string; redirectUri: string; codeChallenge: string; resource: string; seconds: number }): Promise<void> {
  await getPool().query(
    `insert into oauth_codes (code_hash, client_id, user_id, redirect_uri, code_challenge, resource, expires_at)
     values ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))`,
    [data.codeHash, data.clientId, data.userId, data.redirectUri, data.codeChallenge, data.resource, data.seconds],
  );
  // Each new code sweeps a few codes a day past their end (a reuse is only caught while the row lives).
  await getPool().query(`delete from oauth_codes where code_hash in (select code_hash from oauth_codes where expires_at < now() - interval '1 day' limit 100)`);
}

export type CodeRow = { clientId: string; userId: string; redirectUri: string; codeChallenge: string; resource: string };

/**
 * Uses a code up: its row when it was unused and unexpired, else null. A code presented again
 * revokes the grant it was exchanged for (RFC 6749 §4.1.2: it may have been stolen).
 */
export async function consumeCode({ codeHash }: { codeHash: string }): Promise<CodeRow | null> {
  const { rows } = await getPool().query<CodeRow>(
    `update oauth_codes set used_at = now() where code_hash = $1 and used_at is null and expires_at > now()
     returning client_id as "clientId", user_id as "userId", redirect_uri as "redirectUri", code_challenge as "codeChallenge", resource`,
    [codeHash],
  );
  if (rows[0]) return rows[0];
  await getPool().query(
    `update oauth_grants set revoked_at = now() where revoked_at is null and id = (select grant_id from oauth_codes where code_hash = $1 and used_at is not null)`,
    [codeHash],
  );
  return null;
}

export type TokenPair = { accessHash: string; refreshHash: string; accessSeconds: number; refreshSeconds: number };

const INSERT_PAIR = `insert into oauth_tokens (token_hash, grant_id, kind, expires_at)
  select x.hash, g.id, x.kind, now() + make_interval(secs => x.secs) from g,
  (values ($1::text, 'access', $3::int), ($2::text, 'refresh', $4::int)) as x(hash, kind, secs)`;
const pairValues = (p: TokenPair) => [p.accessHash, p.refreshHash, p.accessSeconds, p.refreshSeconds];

/** A new grant for a code exchanged, with its first tokens; the code names its grant. */
export async function insertGrant(data: { codeHash: string; userId: string; clientId: string; resource: string; tokens: TokenPair }): Promise<void> {
  await getPool().query(
    `with g as (insert into oauth_grants (id, user_id, client_id, resource) values (gen_random_uuid(), $5, $6, $7) returning id),
     c as (update oauth_codes set grant_id = (select id from g) where code_hash = $8),
     t as (${INSERT_PAIR})
     select id from g`,
    [...pairValues(data.tokens), data.userId, data.clientId, data.resource, data.codeHash],
  );
}

/**
 * Exchanges a refresh token of the client's live grant, of a user still active, for a new pair
 * (the old one is used up).
 * False when there is none; a refresh token presented again revokes its grant.
 */
export async function rotateRefreshToken(data: { refreshHash: string; clientId: string; tokens: TokenPair }): Promise<boolean> {
  const { rows } = await getPool().query<{ id: string }>(
    `with g as (
       update oauth_tokens t set used_at = now() from oauth_grants gr join users u on u.id = gr.user_id
       where t.token_hash = $5 and t.kind = 'refresh' and t.used_at is null and t.expires_at > now()
         and gr.id = t.grant_id and gr.client_id = $6 and gr.revoked_at is null and u.disabled_at is null
       returning gr.id),
     t as (${INSERT_PAIR}),
     -- The grant's expired tokens go as it rotates: a used refresh token is kept until its end, to catch a replay.
     swept as (delete from oauth_tokens o using g where o.grant_id = g.id and o.expires_at < now())
     select id from g`,
    [...pairValues(data.tokens), data.refreshHash, data.clientId],
  );
  if (rows[0]) return true;
  await getPool().query(
    `update oauth_grants set revoked_at = now() where revoked_at is null and id = (select grant_id from oauth_tokens where token_hash = $1 and kind = 'refresh' and used_at is not null)`,
    [data.refreshHash],
  );
  return false;
}

/** Revokes the grant of a token of the client's (RFC 7009: the whole family goes). */
export async function revokeGrantOfToken(data: { tokenHash: string; clientId: string }): Promise<void> {
  await getPool().query(
    `update oauth_grants g set revoked_at = now() from oauth_tokens t
     where t.token_hash = $1 and g.id = t.grant_id and g.client_id = $2 and g.revoked_at is null`,
    [data.tokenHash, data.clientId],
  );
}

export type AccessTokenOwner = { grantId: string; userId: string; email: string; role: "user" | "admin" };

/** The live, unexpired access token's grant and its active user, noting the grant's use (at most once a minute). */
export async function findAccessTokenOwner(data: { tokenHash: string; resource: string }): Promise<AccessTokenOwner | null> {
  const { rows } = await getPool().query<AccessTokenOwner>(
    `with o as (
       select g.id as "grantId", u.id as "userId", u.email, u.role from oauth_tokens t
       join oauth_grants g on g.id = t.grant_id join users u on u.id = g.user_id
       where t.token_hash = $1 and t.kind = 'access' and t.expires_at > now() and g.revoked_at is null
         and g.resource = $2 and u.disabled_at is null),
     touched as (update oauth_grants set last_used_at = now() where id = (select "grantId" from o)
       and (last_used_at is null or last_used_at < now() - interval '1 minute'))
     select * from o`,
    [data.tokenHash, data.resource],
  );
  return rows[0] ?? null;
}

export type ConnectedClient = { grantId: string; clientName: string; createdAt: Date; lastUsedAt: Date | null };

export async function listConnectedClients({ userId }: { userId: string }): Promise<ConnectedClient[]> {
  const { rows } = await getPool().query<ConnectedClient>(
    `select g.id as "grantId", c.name as "clientName", g.created_at as "createdAt", g.last_used_at as "lastUsedAt"
     from oauth_grants g join oauth_clients c on c.id = g.client_id
     where g.user_id = $1 and g.revoked_at is null
       and exists (select 1 from oauth_tokens t where t.grant_id = g.id and t.kind = 'refresh' and t.used_at is null and t.expires_at > now())
     order by g.created_at desc limit 100`,
    [userId],
  );
  return rows;
}

/** Revokes one of the user's grants; false when it is not theirs or already revoked. */
export async function revokeUserGrant(data: { userId: string; grantId: string }): Promise<boolean> {
  if (!UUID.test(data.grantId)) return false;
  const { rowCount } = await getPool().query(`update oauth_grants set revoked_at = now() where id = $1 and user_id = $2 and revoked_at is null`, [data.grantId, data.userId]);
  return (rowCount ?? 0) > 0;
}
