import "server-only";
import { handleHostApiCall, refuseHostApiCall } from "../../runner-host/api/handle-call";
import { endpoint } from "../endpoint";

/** POST /api/v1/runner-api/{group}/{action}: a runner's call to the host API for one of its runs; failures in the host API's own `{ok: false, error}` shape. */
export const hostApiEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/runner-api/[group]/[action]",
  auth: "runner",
  handle: ({ req, runner, params }) => handleHostApiCall(req, runner.endpointId, { group: params.group!, action: params.action! }),
  refuse: (err, _req, params) => refuseHostApiCall(err, { group: params.group!, action: params.action! }),
});
