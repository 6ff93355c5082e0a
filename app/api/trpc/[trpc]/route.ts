import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "@/server/trpc/root";
import { createTrpcContext } from "@/server/trpc/init";
import { logger } from "@/server/logger";

export const dynamic = "force-dynamic";

// /api/trpc/*: the admin API (admins only, enforced per procedure)
async function handler(req: Request): Promise<Response> {
  const started = performance.now();
  const res = await fetchRequestHandler({ endpoint: "/api/trpc", req, router: appRouter, createContext: createTrpcContext });
  logger.info({ method: req.method, path: new URL(req.url).pathname, status: res.status, ms: Math.round(performance.now() - started) }, "request");
  return res;
}

export { handler as GET, handler as POST };
