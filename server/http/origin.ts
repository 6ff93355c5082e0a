import "server-only";
import { env } from "../env";
import { nodeRouterWanted } from "./node-routes";

// The origin a request reached the app at, for the absolute URLs handed back to that caller (local
// storage's signed URLs). Next's path and the node routes (node-routes.ts) build req.url
// differently (Next from the name it was started with, "localhost"), so the origin is read from
// the request's own headers on both: PUBLIC_URL when set; else the Host the client used, and the
// X-Forwarded-Host/-Proto a proxy set only when the operator says one is trusted (TRUST_PROXY),
// since any client can send those headers.

// A host as a Host header carries it: a name or IPv4 address, or a bracketed IPv6 one, and a port.
const HOST = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

function firstValue(header: string | null): string | null {
  const value = header?.split(",")[0]?.trim();
  return value ? value : null;
}

export function requestOrigin(req: Request): string {
  if (env.PUBLIC_URL) return new URL(env.PUBLIC_URL).origin;
  const url = new URL(req.url);
  const forwardedHost = env.TRUST_PROXY ? firstValue(req.headers.get("x-forwarded-host")) : null;
  const forwardedProto = env.TRUST_PROXY ? firstValue(req.headers.get("x-forwarded-proto"))?.toLowerCase() : null;
  const host = forwardedHost ?? req.headers.get("host");
  // Next builds req.url's scheme from X-Forwarded-Proto itself; our own server (start-server.mjs)
  // only speaks plain HTTP, so there an untrusted header changes nothing.
  const protocol = forwardedProto === "https" || forwardedProto === "http" ? `${forwardedProto}:` : nodeRouterWanted() ? "http:" : url.protocol;
  if (!host || !HOST.test(host)) return url.origin;
  return new URL(`${protocol}//${host}`).origin;
}
