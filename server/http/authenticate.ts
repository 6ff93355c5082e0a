import "server-only";
import { forgetApiKeyOwner } from "../auth/api-keys";
import { authenticateRequest, claimedApiKeyCaller, getSessionPrincipal, type ClaimedApiKey, type Principal } from "../auth/session";
import { ApiKeyRefusedError, AppError } from "../kernel/errors";
import { authenticateRunner } from "../runner-host/api/session";

// The ways an endpoint knows who is calling, one per auth kind (endpoint.ts):
// - none: the endpoint's own credential, if any, is in its input (a signed URL's token);
// - caller: an API key (`Authorization: Bearer`) or else the browser session;
// - claimed-caller: the same, but a key seen in the last few minutes is taken on trust and
//   handed on as `claimedKey`, which the service's one statement checks (see withCaller);
// - admin: the browser session of an admin, never a key, never a cross-site request;
// - session: the browser session of any user, never a key, never a cross-site request (a consent form);
// - runner: a runner endpoint's secret (the host API).
export type AuthKind = "none" | "caller" | "claimed-caller" | "admin" | "session" | "runner";

export type Authenticated = {
  none: object;
  caller: { principal: Principal };
  "claimed-caller": { principal: Principal; claimedKey?: ClaimedApiKey };
  admin: { principal: Principal };
  session: { principal: Principal };
  runner: { runner: { endpointId: string } };
};

/**
 * The signed-in admin. Only the browser session counts (no API keys), and a cross-site request
 * is refused even with the session cookie: a form on another site must not be able to act as
 * the admin (add documents that runners will then read).
 */
async function requireAdmin(req: Request): Promise<Principal> {
  if (req.headers.get("sec-fetch-site") === "cross-site") throw new AppError("FORBIDDEN", "Cross-site uploads are not allowed");
  const principal = await getSessionPrincipal();
  if (!principal) throw new AppError("UNAUTHORIZED", "Sign in as an admin to upload documents");
  if (principal.role !== "admin") throw new AppError("FORBIDDEN", "Admins only");
  return principal;
}

/**
 * The signed-in user, by the browser session only. A browser's request from any other site
 * (another subdomain included) is refused: a form elsewhere must not answer for them.
 */
async function requireSession(req: Request): Promise<Principal> {
  const site = req.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") throw new AppError("FORBIDDEN", "Requests from other sites are not allowed");
  const principal = await getSessionPrincipal();
  if (!principal) throw new AppError("UNAUTHORIZED", "Sign in first");
  return principal;
}

/**
 * Runs a handler's work (checks, parsing, the service call) for the request's caller. A bearer
 * key seen in the last few minutes names its user without a database read: `claimedKey` then
 * goes to the service, whose one statement checks the key in the same round trip (startRun's
 * accepting statement, the /history page query), so the request makes one round trip instead of
 * two. Any failure checks the key before it is reported, so a refused key is always answered
 * 401, as when it is read up front.
 */
async function withCaller<T>(req: Request, work: (caller: { principal: Principal; claimedKey?: ClaimedApiKey }) => Promise<T>): Promise<T> {
  const claimed = claimedApiKeyCaller(req);
  if (!claimed) return work({ principal: await authenticateRequest(req) });
  let verified = false;
  const verify = async () => {
    if (verified) return;
    verified = true;
    await authenticateRequest(req);
  };
  try {
    return await work({ principal: claimed.principal, claimedKey: { hash: claimed.keyHash, verify } });
  } catch (err) {
    if (err instanceof ApiKeyRefusedError) forgetApiKeyOwner(err.keyHash);
    await verify(); // throws the 401 that says what is wrong with the key
    if (err instanceof ApiKeyRefusedError) throw new AppError("UNAUTHORIZED", "Invalid API key");
    throw err;
  }
}

/**
 * Runs `work` as the request's caller of the given kind. For claimed-caller the whole of `work`
 * (reading the body included) runs inside withCaller, so any failure checks the key first and a
 * refused key is answered 401 whatever else is wrong.
 */
export async function asCaller<K extends AuthKind, T>(kind: K, req: Request, work: (who: Authenticated[K]) => Promise<T>): Promise<T> {
  const as = work as (who: Authenticated[AuthKind]) => Promise<T>;
  switch (kind) {
    case "none":
      return as({});
    case "caller":
      return as({ principal: await authenticateRequest(req) });
    case "claimed-caller":
      return withCaller(req, (caller) => as(caller));
    case "admin":
      return as({ principal: await requireAdmin(req) });
    case "session":
      return as({ principal: await requireSession(req) });
    case "runner":
      return as({ runner: await authenticateRunner(req) });
  }
  throw new Error(`unknown auth kind ${kind}`);
}
