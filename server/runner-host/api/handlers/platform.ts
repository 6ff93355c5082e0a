import "server-only";
import { UNSUPPORTED_ERROR_STATUS, type AgentAPIErrorCode } from "../../../protocols/runner/host-api";
import { PlatformActionRefusal, performPlatformAction, type PlatformRefusalReason } from "../../platform-actions";
import type { JsonHandler } from "../call";
import { HostApiFailure } from "../failure";

// platform/request_action: reached only when the run's grant names the action (authorize.ts);
// performed by platform-actions.ts, whose typed refusals become the host API's errors here.

const REFUSALS: Record<PlatformRefusalReason, { code: AgentAPIErrorCode; status?: number }> = {
  not_granted: { code: "unauthorized" },
  unsupported: { code: "runtime_error", status: UNSUPPORTED_ERROR_STATUS },
  invalid_payload: { code: "invalid_argument" },
  another_conversation: { code: "unauthorized" },
  message_not_found: { code: "not_found" },
  not_own_message: { code: "unauthorized" },
};

export const requestPlatformAction: JsonHandler<"platform/request_action"> = async ({ params, session }) => {
  try {
    const result = await performPlatformAction(
      { runId: session.runId, threadId: session.threadId, runnerId: session.runnerId, grantedActions: session.authorization.platform_api.actions },
      { action: params.action, target: params.target, payload: params.payload },
    );
    return { status: "executed", result };
  } catch (err) {
    if (!(err instanceof PlatformActionRefusal)) throw err;
    const { code, status } = REFUSALS[err.reason];
    throw new HostApiFailure(code, err.message, { status, details: { reason: err.reason, action: params.action } });
  }
};
