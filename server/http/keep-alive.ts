import "server-only";
import { after } from "next/server";
import type { KeepAlive } from "../runs/service/runs";
import { nodeRouterWanted } from "./node-routes";

/**
 * Keeps work a request started (a run's execution) alive after the answer: Next's `after`, so it
 * outlives the response on serverless hosts too. The Node server (scripts/start-server.mjs)
 * outlives its responses anyway, and the requests its node routes serve have no request scope
 * for `after`, which threw there once per run.
 */
export const keepAlive: KeepAlive = (work) => {
  if (nodeRouterWanted()) return;
  try {
    after(work);
  } catch {
    // Outside a request scope there is nothing to extend; the promise runs on.
  }
};
