import "server-only";
import { createHash, timingSafeEqual } from "node:crypto";
import { getSessionPrincipal } from "../../auth/session";
import { env } from "../../env";
import { AppError } from "../../kernel/errors";
import { metricsExposition } from "../../telemetry/metrics";
import { endpoint } from "../endpoint";

// Prometheus scrapes with `Authorization: Bearer <METRICS_TOKEN>`; an admin's browser session
// may read the same page. Nobody else: the numbers describe every user's traffic.

const digest = (text: string) => createHash("sha256").update(text).digest();

function tokenHolds(header: string): boolean {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  // Compared as digests: equal lengths, and no early exit that times the token's prefix.
  return !!token && !!env.METRICS_TOKEN && timingSafeEqual(digest(token), digest(env.METRICS_TOKEN));
}

/** GET /api/metrics: this instance's metrics in Prometheus's text format. */
export const metricsEndpoint = endpoint({
  method: "GET",
  path: "/api/metrics",
  auth: "none",
  async handle({ req }) {
    const header = req.headers.get("authorization");
    if (header !== null) {
      if (!env.METRICS_TOKEN) throw new AppError("UNAUTHORIZED", "No METRICS_TOKEN is configured: set one to scrape metrics with a bearer token, or sign in as an admin");
      if (!tokenHolds(header)) throw new AppError("UNAUTHORIZED", "Invalid metrics token: send `Authorization: Bearer <METRICS_TOKEN>`");
    } else {
      const principal = await getSessionPrincipal();
      if (!principal) throw new AppError("UNAUTHORIZED", "Send `Authorization: Bearer <METRICS_TOKEN>` or sign in as an admin");
      if (principal.role !== "admin") throw new AppError("FORBIDDEN", "Admins only");
    }
    const { text, contentType } = await metricsExposition();
    return new Response(text, { headers: { "content-type": contentType, "cache-control": "no-store" } });
  },
});
