import type { RunHandle } from "../kernel/runs";

type RunIdentity = Pick<RunHandle, "id" | "runId" | "threadId" | "userId" | "protocol" | "deadlineAt" | "createdAt">;

/** The handle an execution names its run by, from any row that carries the run's identity. */
export function runHandle(run: RunIdentity, more: Pick<RunHandle, "status" | "apiKeyHash" | "attempt" | "traceParent" | "traceState"> = {}): RunHandle {
  const { id, runId, threadId, userId, protocol, deadlineAt, createdAt } = run;
  return { id, runId, threadId, userId, protocol, deadlineAt, createdAt, ...more };
}
