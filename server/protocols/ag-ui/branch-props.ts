// How a client of POST /api/v1/agent/runs (one new user message per run: the web chat) asks for a
// branch (docs/branches.md), as `forwardedProps.branch`:
// - `{ "replace": "<messageId>" }`: the run's user message is an edit of that user message of the
//   thread's current branch; the thread forks there, the old branch kept;
// - `{ "regenerate": "<messageId>" }`: a new answer to that user message of the current branch;
//   the thread forks after it and the run's own user message (which the spec's table requires) is
//   not added: the model answers the thread's.
// The AG-UI-native door (POST /api/v1/ag-ui) reads both from the conversation it is sent.

export type BranchRequest = { replace: string } | { regenerate: string };

const MAX_ID = 256;

/** The branch request in `forwardedProps`, none, or a message naming what is wrong. */
export function forwardedBranch(props: unknown): { ok: true; branch: BranchRequest | undefined } | { ok: false; message: string } {
  const value = props && typeof props === "object" && "branch" in props ? (props as { branch: unknown }).branch : undefined;
  if (value === undefined || value === null) return { ok: true, branch: undefined };
  const wrong = { ok: false as const, message: 'forwardedProps.branch: must be {"replace": messageId} or {"regenerate": messageId}' };
  if (typeof value !== "object" || Array.isArray(value)) return wrong;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length !== 1) return wrong;
  const [key, id] = entries[0]!;
  if ((key !== "replace" && key !== "regenerate") || typeof id !== "string" || id.length === 0 || id.length > MAX_ID) return wrong;
  return { ok: true, branch: key === "replace" ? { replace: id } : { regenerate: id } };
}
