import "server-only";
import { z } from "zod";
import { findAction } from "../tools/project-cli/actions";

// Which of the agent's project_cli calls wait for a person. A policy, not code: the user picks
// one in the chat's settings, an API key or a runner binding may approve for automation, and the
// run freezes the one in force when it first needs it (repository.ts, freezeRunPolicy).

/** What a user can choose: every write asks, only writes that involve other people ask, nothing asks. */
export const userApprovalPolicySchema = z.enum(["always", "others", "never"]).describe("always: every write asks; others: writes that involve other people ask; never: nothing asks");
export type UserApprovalPolicy = z.infer<typeof userApprovalPolicySchema>;

/** A run's frozen policy: the user's, or `auto` when its API key or binding approves by itself. */
export type RunApprovalPolicy = UserApprovalPolicy | "auto";

export const DEFAULT_APPROVAL_POLICY: UserApprovalPolicy = "others";

/** Whether `module.method` with this (already validated) input waits for a person under `policy`. */
export function needsApproval(policy: RunApprovalPolicy, module: string, method: string, input: unknown): boolean {
  const action = findAction(module, method);
  if (!action || action.kind !== "write") return false;
  // Each module declares its writes' reach (module.ts, involvesOthers); undeclared asks.
  return writeNeedsApproval(policy, () => action.involvesOthers?.(input) ?? true);
}

/** Whether a write whose reach `involvesOthers` tells waits for a person under `policy`. */
export function writeNeedsApproval(policy: RunApprovalPolicy, involvesOthers: () => boolean): boolean {
  switch (policy) {
    case "always":
      return true;
    case "others":
      return involvesOthers();
    default:
      return false;
  }
}
