import "server-only";
import { currentModelInfo, listModels } from "../../models/catalog";
import { RETRY_AFTER_SECONDS } from "../../kernel/errors";
import { checkHealth } from "../../operations/service/health";
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

// The process's start, as the `created` of every model: configuration is read once per process.
const MODELS_LISTED_AT = Math.floor(Date.now() / 1000);

/** GET /api/v1/models: the configured models, OpenAI-style (`{object: "list", data: [...]}`), the default first. */
export const modelsEndpoint = endpoint({
  method: "GET",
  path: "/api/v1/models",
  auth: "caller",
  handle: async () =>
    jsonResponse({
      object: "list",
      data: listModels().map((m, i) => ({ id: m.id, object: "model", created: MODELS_LISTED_AT, owned_by: m.provider, label: m.label, offline: m.offline, default: i === 0 })),
    }),
});
