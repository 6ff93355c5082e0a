import "server-only";
import type { NextRequest } from "next/server";
import { handlers } from "../../auth/auth";
import { adapterRoute } from "../endpoint";

/** /api/auth/*: Auth.js's own sign-in, sign-out and session routes, with the edge's log line. */
export const authJsEndpoints = {
  GET: adapterRoute((req) => handlers.GET(req as NextRequest)),
  POST: adapterRoute((req) => handlers.POST(req as NextRequest)),
};
