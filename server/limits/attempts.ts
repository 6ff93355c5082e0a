import "server-only";
import { env } from "../env";
import { AppError } from "../errors";
import { countRecentFailures, insertAttempt, type AttemptKind } from "../repositories/auth-attempts";

// Back-off for guessed credentials, the same on every instance (the failures are rows in
// PostgreSQL). A few failures are free; after them the next attempt waits BACKOFF_FIRST_SECONDS
// from the latest failure, and each failure beyond doubles the wait (up to BACKOFF_MAX_SECONDS). Sign-in counts per account
// and per address; API keys and runner secrets name no account, so they count per address, and
// only a key or secret that fails is ever answered 429: a valid one is never refused, so nobody can
// lock a user out by sending bad keys. Addresses are known only behind a trusted proxy.

/** The sign-in refusal's code (`too_many_attempts:<seconds>`), for the sign-in form's message. */
export const TOO_MANY_ATTEMPTS = "too_many_attempts";

const WINDOW_SECONDS = 15 * 60;
const BACKOFF_FIRST_SECONDS = 30;
const BACKOFF_MAX_SECONDS = 15 * 60;
const FREE_PER_ACCOUNT = 5;
const FREE_PER_ADDRESS = 20;

/** The client's address, as a trusted reverse proxy reports it (TRUST_PROXY); null otherwise. */
export function clientAddress(headers: Headers): string | null {
  if (!env.TRUST_PROXY) return null;
  const first = headers.get("x-forwarded-for")?.split(",")[0]?.trim();
  return first ? first.slice(0, 64) : null;
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
    byAddress ? wait(byAddress.failures, FREE_PER_ADDRESS, byAddress.secondsSinceLast) : 0,
  );
}

export async function recordSignIn({ email, address, succeeded }: { email: string; address: string | null; succeeded: boolean }): Promise<void> {
  await insertAttempt({ kind: "sign_in", account: email, address, succeeded });
}

/**
 * Records a refused API key or runner secret and answers how long its address must now wait
 * (0: answer it as refused). Without a known address (no trusted proxy) the row is the audit only:
 * one count shared by every client would hold back the clients of a whole network.
 */
export async function refusedCredential({ kind, address }: { kind: Exclude<AttemptKind, "sign_in">; address: string | null }): Promise<number> {
  await insertAttempt({ kind, account: null, address, succeeded: false });
  if (!address) return 0;
  const { failures, secondsSinceLast } = await countRecentFailures({ kind, address, windowSeconds: WINDOW_SECONDS });
  // This failure is counted already; the wait is the one the failures before it earned.
  return wait(failures - 1, FREE_PER_ADDRESS, secondsSinceLast);
}

/** A refused API key's 401, or 429 once its address has refused too many (a valid key is never held back). */
export async function apiKeyRefusal(err: unknown, headers: Headers): Promise<unknown> {
  if (!(err instanceof AppError) || err.code !== "UNAUTHORIZED") return err;
  const seconds = await refusedCredential({ kind: "api_key", address: clientAddress(headers) });
  if (seconds === 0) return err;
  return new AppError("RATE_LIMITED", `Too many invalid API keys from your address: retry in ${seconds} s with a valid key`, { retryAfterSeconds: seconds });
}
