import "server-only";
import { authenticateRequest, getSessionPrincipal, type ClaimedApiKey, type Principal } from "../auth/session";
import { AppError } from "../errors";
import { authenticateRunner } from "../runner-host/api/session";
import { withCaller } from "./caller";

// The ways an endpoint knows who is calling, one per auth kind (endpoint.ts):
// - none: the endpoint's own credential, if any, is in its input (a signed URL's token);
// - caller: an API key (`Authorization: Bearer`) or else the browser session;
// - claimed-caller: the same, but a key seen in the last few minutes is taken on trust and
//   handed on as `claimedKey`, which the service's one statement checks (see withCaller);
// - admin: the browser session of an admin, never a key, never a cross-site request;
// - runner: a runner endpoint's secret (the host API).
export type AuthKind = "none" | "caller" | "claimed-caller" | "admin" | "runner";

export type Authenticated = {
  none: object;
  caller: { principal: Principal };
  "claimed-caller": { principal: Principal; claimedKey?: ClaimedApiKey };
  admin: { principal: Principal };
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
    case "runner":
      return as({ runner: await authenticateRunner(req) });
  }
  throw new Error(`unknown auth kind ${kind}`);
}
