import "server-only";
import { createHash } from "node:crypto";
import { AppError } from "../kernel/errors";
import { logger } from "../logger";
import { findApiKeyByHash, touchApiKey } from "../accounts/repository/api-keys";

// Who a bearer key belongs to. Services that issue and revoke keys (accounts/service/api-keys.ts) and the
// edge that reads them both come here, so the key format, its hash and the cache of recent owners
// live in one place below both.

// Keys look like dsp_<43 base64url chars>. Only their SHA-256 is stored: a key is
// high-entropy, so a fast hash is enough and keeps per-request authentication cheap.
export const API_KEY_PREFIX = "dsp_";
const KEY_PATTERN = /^dsp_[A-Za-z0-9_-]{43}$/;
const LAST_USED_RESOLUTION_MS = 60_000;

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

export const ACCOUNT_DEACTIVATED_MESSAGE = "The account this API key belongs to has been deactivated: an admin can reactivate it";

export type ApiKeyPrincipal = { userId: string; email: string; role: "user" | "admin"; apiKeyId: string };

/**
 * Resolves a bearer key to its user, or throws UNAUTHORIZED with a message that says what is
 * wrong (FORBIDDEN when the key is good but its user is deactivated).
 */
export async function authenticateApiKey(key: string): Promise<ApiKeyPrincipal> {
  if (!KEY_PATTERN.test(key)) {
    throw new AppError("UNAUTHORIZED", "Malformed API key: expected `Authorization: Bearer dsp_...`");
  }
  // Read on every request: a revoked key stops working at once.
  const keyHash = hashApiKey(key);
  const found = await findApiKeyByHash({ keyHash });
  if (!found) throw new AppError("UNAUTHORIZED", "Invalid API key");
  if (found.revokedAt) {
    recentOwners.delete(keyHash);
    throw new AppError("UNAUTHORIZED", "This API key has been revoked");
  }
  if (found.disabledAt) {
    recentOwners.delete(keyHash);
    // The key is genuine (so not counted as a guess): its owner may not act.
    throw new AppError("FORBIDDEN", ACCOUNT_DEACTIVATED_MESSAGE);
  }
  recordKeyUse(found);
  const principal = { userId: found.userId, email: found.email, role: found.role, apiKeyId: found.id };
  rememberOwner(keyHash, principal, found.lastUsedAt);
  return principal;
}

// Whom each key recently authenticated as. Never proof of anything: a request that takes a key's
// owner from here must have the key checked (valid, unrevoked, still that user's) by the statement
// that does its work, in the same round trip (see claimedApiKeyOwner).
const OWNER_TTL_MS = 5 * 60_000;
const recentOwners = new Map<string, { principal: ApiKeyPrincipal; lastUsedAt: Date | null; at: number }>();

function rememberOwner(keyHash: string, principal: ApiKeyPrincipal, lastUsedAt: Date | null): void {
  if (recentOwners.size >= 10_000) recentOwners.clear();
  recentOwners.set(keyHash, { principal, lastUsedAt, at: Date.now() });
}

/**
 * The user a well-formed key authenticated as in the last few minutes, without a database read,
 * and the key's hash for the statement that must check it. Null when unknown: authenticate then.
 */
export function claimedApiKeyOwner(key: string): { principal: ApiKeyPrincipal; keyHash: string } | null {
  if (!KEY_PATTERN.test(key)) return null;
  const keyHash = hashApiKey(key);
  const known = recentOwners.get(keyHash);
  if (!known || Date.now() - known.at > OWNER_TTL_MS) return null;
  recordKeyUse({ id: known.principal.apiKeyId, lastUsedAt: known.lastUsedAt });
  return { principal: known.principal, keyHash };
}

/** The statement that checked a claimed key refused it: forget whom it belonged to. */
export function forgetApiKeyOwner(keyHash: string): void {
  recentOwners.delete(keyHash);
}

// When this process last wrote last_used_at per key, so concurrent requests with the same
// stale value send one update between them, not one each.
const touchedAt = new Map<string, number>();

/** last_used_at at most once a minute per key: bookkeeping that must never fail or slow the request. */
function recordKeyUse({ id, lastUsedAt }: { id: string; lastUsedAt: Date | null }): void {
  const now = Date.now();
  const last = Math.max(lastUsedAt?.getTime() ?? 0, touchedAt.get(id) ?? 0);
  if (now - last < LAST_USED_RESOLUTION_MS) return;
  if (touchedAt.size >= 10_000) touchedAt.clear();
  touchedAt.set(id, now);
  touchApiKey({ id, at: new Date(now), notBefore: new Date(now - LAST_USED_RESOLUTION_MS) }).catch((err: unknown) =>
    logger.warn({ err }, "could not record API key use"),
  );
}
