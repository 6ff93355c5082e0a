import "server-only";
import { apiKeyRefusal } from "../limits/attempts";
import { auth } from "./auth";
import { AppError } from "../kernel/errors";
import { findSessionUser } from "../accounts/repository/users";
import { authenticateApiKey, claimedApiKeyOwner, hashApiKey } from "./api-keys";

/**
 * Who is calling. `apiKeyId` names the key of a caller that came with one (its budgets apply);
 * `apiKeyHash` is that key's SHA-256 (runs it starts may auto-approve writes).
 */
export type Principal = {
  userId: string;
  email: string;
  role: "user" | "admin";
  via: "session" | "api_key";
  apiKeyId?: string;
  apiKeyHash?: string;
};

/**
 * A caller's API key taken on trust (see withCaller, server/http/authenticate.ts) until the one statement that does the work
 * checks `hash` in the same round trip; `verify` checks it now.
 */
export type ClaimedApiKey = { hash: string; verify: () => Promise<void> };

/**
 * The browser session's user, re-read from the database on every request: null when signed out,
 * deleted, deactivated, or signed in before the password last changed (an admin's reset voids
 * every session). `mustChangePassword`: signed in with a one-time password, so the session is
 * good for choosing a new one and nothing else.
 */
export async function getSignedInUser(): Promise<{ principal: Principal; mustChangePassword: boolean } | null> {
  const session = await auth();
  const id = session?.user?.id;
  if (!id) return null;
  const user = await findSessionUser({ id });
  if (!user || user.disabledAt || user.sessionVersion !== (session.sessionVersion ?? 0)) return null;
  return { principal: { userId: user.id, email: user.email, role: user.role, via: "session" }, mustChangePassword: user.mustChangePassword };
}

/** The signed-in browser user who may use the app; null also while they must choose a new password. */
export async function getSessionPrincipal(): Promise<Principal | null> {
  const user = await getSignedInUser();
  return user && !user.mustChangePassword ? user.principal : null;
}

/**
 * Authenticates a protocol request: `Authorization: Bearer <api key>` when present
 * (and then only that), otherwise the browser session.
 */
export async function authenticateRequest(req: Request): Promise<Principal> {
  const header = req.headers.get("authorization");
  if (header !== null) {
    const key = bearerKey(header);
    if (!key) throw new AppError("UNAUTHORIZED", "Malformed Authorization header: expected `Bearer <api key>`");
    const p = await authenticateApiKey(key).catch(async (err: unknown) => {
      throw await apiKeyRefusal(err, req.headers);
    });
    return { userId: p.userId, email: p.email, role: p.role, via: "api_key", apiKeyId: p.apiKeyId, apiKeyHash: hashApiKey(key) };
  }
  const user = await getSignedInUser();
  if (!user) throw new AppError("UNAUTHORIZED", "Sign in or send `Authorization: Bearer <api key>`");
  if (user.mustChangePassword) throw new AppError("FORBIDDEN", "Choose a new password first: open /change-password");
  return user.principal;
}

function bearerKey(header: string): string | null {
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? null;
}

/**
 * The caller a bearer key authenticated as a few minutes ago, unchecked, with the key's hash:
 * only for a handler whose one statement checks the key as it writes (see withCaller, server/http/authenticate.ts). Null when
 * the request has no such key: call authenticateRequest.
 */
export function claimedApiKeyCaller(req: Request): { principal: Principal; keyHash: string } | null {
  const header = req.headers.get("authorization");
  const key = header === null ? null : bearerKey(header);
  const claimed = key ? claimedApiKeyOwner(key) : null;
  if (!claimed) return null;
  const { userId, email, role, apiKeyId } = claimed.principal;
  return { principal: { userId, email, role, via: "api_key", apiKeyId, apiKeyHash: claimed.keyHash }, keyHash: claimed.keyHash };
}
