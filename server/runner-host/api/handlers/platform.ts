import "server-only";
import { UNSUPPORTED_ERROR_STATUS } from "../../../protocols/runner/host-api";
import type { JsonHandler } from "../call";
import { HostApiFailure } from "../failure";

// platform/request_action: reached only when the manifest, the binding and the policy all
// allow the action. Dispatch has no platform adapters yet, so an allowed action is still
// answered honestly as unsupported rather than pretended.
export const requestPlatformAction: JsonHandler<"platform/request_action"> = async ({ params }) => {
  throw new HostApiFailure("runtime_error", `Platform action ${params.action} is allowed for this run, but this host has no platform adapter to perform it`, {
    status: UNSUPPORTED_ERROR_STATUS,
    details: { reason: "unsupported", action: params.action },
  });
};
