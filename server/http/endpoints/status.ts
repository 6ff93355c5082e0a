import "server-only";
import { currentModelInfo } from "../../models/provider";
import { RETRY_AFTER_SECONDS } from "../../errors";
import { checkHealth } from "../../services/health";
import { endpoint } from "../endpoint";
import { jsonResponse } from "../json";

// What the service and its caller are: health for load balancers, the caller, the model.

/** GET /api/health: database reachability and version. */
export const healthEndpoint = endpoint({
  method: "GET",
  path: "/api/health",
  auth: "none",
  async handle() {
    const health = await checkHealth();
    return health.database.reachable ? jsonResponse(health) : jsonResponse(health, 503, { "retry-after": String(RETRY_AFTER_SECONDS) });
  },
});

/** GET /api/v1/me: who the API key or session authenticates as. */
export const meEndpoint = endpoint({
  method: "GET",
  path: "/api/v1/me",
  auth: "caller",
  handle: async ({ principal: { userId, email, role, via } }) => jsonResponse({ userId, email, role, via }),
});

/** GET /api/v1/agent/model: the model the built-in agent runs on ({id, provider, label, offline}). */
export const modelEndpoint = endpoint({
  method: "GET",
  path: "/api/v1/agent/model",
  auth: "caller",
  handle: async () => jsonResponse(currentModelInfo()),
});
