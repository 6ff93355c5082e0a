import "server-only";
import { AppError } from "../kernel/errors";
import { UUID_PATTERN } from "../protocols/ag-ui/run-input-rules";
import { findBranchPoints, switchBranch as switchBranchRow } from "./repository";
import type { BranchPoint, SwitchedBranch } from "../protocols/threads/branches";

// Threads are trees of messages with a current branch (docs/branches.md). Forks happen where runs
// are accepted (server/runs: a regenerated answer, an edited message); this room says where a
// thread's branches are and switches between them, always in the caller's name.

/** The messages of a day of the thread's current branch that have siblings; none when the thread never forked. */
export async function branchPointsOfDay(opts: { threadId: string; branched: boolean; day: string | null }): Promise<BranchPoint[]> {
  if (!opts.branched || !opts.day) return [];
  return findBranchPoints({ threadId: opts.threadId, dayStart: opts.day });
}

/** Makes the branch through a sibling the thread's current one; 404 for a thread that is not the caller's, 409 while it has a run in progress. */
export async function switchBranch(opts: { userId: string; threadId: string; siblingId: string }): Promise<SwitchedBranch> {
  const notFound = new AppError("NOT_FOUND", `Thread ${opts.threadId} not found`);
  if (!UUID_PATTERN.test(opts.threadId)) throw notFound;
  const outcome = await switchBranchRow(opts);
  if (outcome.status === "not_found") throw notFound;
  if (outcome.status === "no_message") throw new AppError("NOT_FOUND", `Thread ${opts.threadId} has no message ${opts.siblingId}`, { field: "siblingId" });
  if (outcome.status === "busy") throw new AppError("CONFLICT", `Thread ${opts.threadId} has a run in progress (${outcome.runId}); switch its branch when it ends`, { activeRunId: outcome.runId });
  return { threadId: opts.threadId, messageId: outcome.messageId, leafMessageId: outcome.leafMessageId };
}
