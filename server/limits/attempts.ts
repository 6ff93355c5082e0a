import "server-only";
import { env } from "../env";
import { AppError } from "../kernel/errors";
import { addressKey, peerAddress } from "../lib/peer-address";
import { countFailuresEverywhere, countRecentFailures, insertAttempt, type AttemptKind } from "../accounts/repository/auth-attempts";

// Back-off for guessed credentials, the same on every instance (the failures are rows in
// PostgreSQL). A few failures are free; after them the next attempt waits BACKOFF_FIRST_SECONDS
// from the latest failure, and each failure beyond doubles the wait (up to BACKOFF_MAX_SECONDS). Sign-in counts per account
// and, behind a trusted proxy, per address; API keys and runner secrets name no account, so they count per address, and
// under a ceiling across all addresses (many addresses, a botnet's or a wide IPv6 range's, guess
// no faster than that). Only a key or secret that fails is ever answered 429: a valid one is never
// refused, so nobody can lock a user out by sending bad keys.

/** The sign-in refusal's code (`too_many_attempts:<seconds>`), for the sign-in form's message. */
export const TOO_MANY_ATTEMPTS = "too_many_attempts";

const WINDOW_SECONDS = 15 * 60;
const BACKOFF_FIRST_SECONDS = 30;
const BACKOFF_MAX_SECONDS = 15 * 60;
const FREE_PER_ACCOUNT = 5;
const CEILING_WINDOW_SECONDS = 60;

/** The client's address as a trusted reverse proxy reports it (TRUST_PROXY); null otherwise. */
export function clientAddress(headers: Headers): string | null {
  if (!env.TRUST_PROXY) return null;
  const first = headers.get("x-forwarded-for")?.split(",")[0]?.trim();
  return first ? addressKey(first) : null;
}

/**
 * The address a refused key or secret is counted by: the proxy's word behind a trusted one, else
 * the TCP connection's (server/lib/peer-address.ts), which a client cannot choose. Sign-in keeps
 * to clientAddress: a waiting sign-in refuses even the right password, so counting an untrusted
 * proxy's one address would let one guesser lock out everyone behind it; a refused key holds back
 * no valid one.
 */
export function credentialAddress(headers: Headers): string | null {
  return env.TRUST_PROXY ? clientAddress(headers) : peerAddress(headers);
}

/** Seconds the next attempt waits after `failures` earlier ones, the latest `secondsSinceLast` ago. */
function wait(failures: number, free: number, secondsSinceLast: number | null): number {
  if (failures < free || secondsSinceLast === null) return 0;
  const backoff = Math.min(BACKOFF_MAX_SECONDS, BACKOFF_FIRST_SECONDS * 2 ** (failures - free));
  return Math.max(0, Math.ceil(backoff - secondsSinceLast));
}

/** Seconds this sign-in must wait (0: it may try), by the account's failures and the address's. */
export function signInWait({ email, address }: { email: string; address: string | null }): Promise<number> {
  return accountWait("sign_in", { email, address });
}

/**
 * Seconds a signed-in user's password change must wait after wrong current passwords: the same
 * back-off as sign-in, counted apart, so a stolen session cannot guess the password faster there.
 */
export function passwordChangeWait({ email, address }: { email: string; address: string | null }): Promise<number> {
  return accountWait("password_change", { email, address });
}

/** A password change's check of the current password: audited, and counted by the back-off. */
export async function recordPasswordChange({ email, address, succeeded }: { email: string; address: string | null; succeeded: boolean }): Promise<void> {
  await insertAttempt({ kind: "password_change", account: email, address, succeeded });
}

/** An admin (or the admin CLI) replaced a user's password with a one-time one: audited beside the changes. */
export async function recordPasswordReset({ email }: { email: string }): Promise<void> {
  await insertAttempt({ kind: "password_reset", account: email, address: null, succeeded: true });
}

async function accountWait(kind: "sign_in" | "password_change", { email, address }: { email: string; address: string | null }): Promise<number> {
  const [byAccount, byAddress] = await Promise.all([
    countRecentFailures({ kind, account: email, windowSeconds: WINDOW_SECONDS }),
    address ? countRecentFailures({ kind, address, windowSeconds: WINDOW_SECONDS }) : null,
  ]);
  return Math.max(
    wait(byAccount.failures, FREE_PER_ACCOUNT, byAccount.secondsSinceLast),
    byAddress ? wait(byAddress.failures, env.CREDENTIAL_FAILURES_FREE_PER_ADDRESS, byAddress.secondsSinceLast) : 0,
  );
}

export async function recordSignIn({ email, address, succeeded }: { email: string; address: string | null; succeeded: boolean }): Promise<void> {
  await insertAttempt({ kind: "sign_in", account: email, address, succeeded });
}

/** How long a refused credential's sender must wait, and whether its own address or everyone's failures earned it. */
export type CredentialWait = { seconds: number; by: "address" | "everyone" };

/**
 * Records a refused API key or runner secret and answers how long its sender must now wait
 * (seconds 0: answer it as refused): its address's back-off, or, past the ceiling of failures of
 * that kind from all addresses in the last minute (CREDENTIAL_FAILURES_PER_MINUTE), a minute.
 */
export async function refusedCredential({ kind, address }: { kind: Exclude<AttemptKind, "sign_in">; address: string | null }): Promise<CredentialWait> {
  await insertAttempt({ kind, account: null, address, succeeded: false });
  const ceiling = env.CREDENTIAL_FAILURES_PER_MINUTE;
  const [byAddress, everywhere] = await Promise.all([
    address ? countRecentFailures({ kind, address, windowSeconds: WINDOW_SECONDS }) : null,
    countFailuresEverywhere({ kind, windowSeconds: CEILING_WINDOW_SECONDS, upTo: ceiling + 1 }),
  ]);
  // This failure is counted already; the wait is the one the failures before it earned.
  const seconds = byAddress ? wait(byAddress.failures - 1, env.CREDENTIAL_FAILURES_FREE_PER_ADDRESS, byAddress.secondsSinceLast) : 0;
  if (seconds > 0) return { seconds, by: "address" };
  return everywhere > ceiling ? { seconds: CEILING_WINDOW_SECONDS, by: "everyone" } : { seconds: 0, by: "address" };
}

/** Where a credential back-off's refusal says the failures came from. */
export const failuresFrom = (wait: CredentialWait) => (wait.by === "address" ? "from your address" : "from all addresses");

/** A refused API key's 401, or 429 once its address, or every address together, refused too many (a valid key is never held back). */
export async function apiKeyRefusal(err: unknown, headers: Headers): Promise<unknown> {
  if (!(err instanceof AppError) || err.code !== "UNAUTHORIZED") return err;
  const held = await refusedCredential({ kind: "api_key", address: credentialAddress(headers) });
  if (held.seconds === 0) return err;
  return new AppError("RATE_LIMITED", `Too many invalid API keys ${failuresFrom(held)}: retry in ${held.seconds} s with a valid key`, { retryAfterSeconds: held.seconds });
}
