import "server-only";
import { getPool } from "../../db";

// Credential attempts (sign-in passwords, API keys, runner secrets, a user's current password when
// changing it): every failure, and each successful sign-in or change, one row; and each password an
// admin reset. The rows are the audit of who guessed what from where, and what the back-off counts
// (server/limits/attempts.ts).

export type AttemptKind = "sign_in" | "api_key" | "runner_secret" | "password_change" | "password_reset";

export async function insertAttempt({ kind, account, address, succeeded }: { kind: AttemptKind; account: string | null; address: string | null; succeeded: boolean }): Promise<void> {
  await getPool().query(`insert into auth_attempts (id, kind, account, address, succeeded, created_at) values (gen_random_uuid(), $1, $2, $3, $4, now())`, [kind, account, address, succeeded]);
}

/**
 * Failures of `kind` in the last `windowSeconds` for the account (after its last success) or from
 * the address, and the seconds since the latest of them.
 */
export async function countRecentFailures({ kind, account, address, windowSeconds }: { kind: AttemptKind; account?: string | null; address?: string | null; windowSeconds: number }): Promise<{ failures: number; secondsSinceLast: number | null }> {
  const { rows } = await getPool().query<{ failures: number; secondsSinceLast: number | null }>(
    `select count(*)::int as failures, extract(epoch from now() - max(created_at))::float8 as "secondsSinceLast"
     from auth_attempts a
     where kind = $1 and not succeeded and created_at > now() - make_interval(secs => $4)
       and ($2::text is null or account = $2) and ($3::text is null or address = $3)
       and ($2::text is null or created_at > coalesce((select max(created_at) from auth_attempts s where s.kind = $1 and s.account = $2 and s.succeeded), '-infinity'))`,
    [kind, account ?? null, address ?? null, windowSeconds],
  );
  return rows[0]!;
}

/**
 * Failures of `kind` from every address in the last `windowSeconds`, counted up to `upTo` only:
 * under a flood of them, the count costs no more than the ceiling it is compared with.
 */
export async function countFailuresEverywhere({ kind, windowSeconds, upTo }: { kind: AttemptKind; windowSeconds: number; upTo: number }): Promise<number> {
  const { rows } = await getPool().query<{ failures: number }>({
    name: "count-failures-everywhere",
    text: `select count(*)::int as failures from (
             select 1 from auth_attempts where kind = $1 and not succeeded and created_at > now() - make_interval(secs => $2) limit $3
           ) recent`,
    values: [kind, windowSeconds, upTo],
  });
  return rows[0]!.failures;
}
