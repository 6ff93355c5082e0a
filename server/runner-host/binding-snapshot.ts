import "server-only";
import { listBindingCandidates, type BindingCandidate, type BindingRow } from "./repository/runners";

// Bindings change rarely and are read on every run, so a run is planned from this process's
// copy of them, and the database checks the plan where the run is accepted (the same round
// trip): dispatch_accept_run compares the effective binding's id and stamp with the plan's
// and answers "replan" when they differ, writing nothing. A stale copy therefore costs a
// retry, never a run on the wrong runner. Past MAX_CACHED bindings (thread-scoped bindings
// can be many) there is no copy and runs ask the database; the count is taken again each minute.

const MAX_CACHED = 10_000;
// How often a process with too many bindings to copy looks again.
const RECOUNT_MS = 60_000;

let snapshot: Promise<BindingCandidate[] | null> | null = null;

/** The plan's claim about the effective binding, for dispatch_accept_run to check. */
export type BindingCheck = { id: string | null; stamp: string | null; event_type: string };

const SCOPE_RANK: Record<string, number> = { thread: 0, user: 1, default: 2 };

/** The same choice as dispatch_effective_binding, over the copy. */
function choose(candidates: BindingCandidate[], { userId, threadId, eventType }: { userId: string; threadId: string; eventType: string }): BindingCandidate | null {
  let best: BindingCandidate | null = null;
  for (const b of candidates) {
    if (!b.eventTypes.includes(eventType)) continue;
    const applies = (b.scope === "thread" && b.threadId === threadId) || (b.scope === "user" && b.userId === userId) || b.scope === "default";
    if (!applies) continue;
    const rank = SCOPE_RANK[b.scope] ?? 3;
    const bestRank = best ? (SCOPE_RANK[best.scope] ?? 3) : Infinity;
    const newer = best !== null && (b.createdAt.getTime() > best.createdAt.getTime() || (b.createdAt.getTime() === best.createdAt.getTime() && b.id > best.id));
    if (rank < bestRank || (rank === bestRank && newer)) best = b;
  }
  return best;
}

/** The effective binding by the copy, with the check that proves it; null when there is no usable copy. */
export async function bindingFromSnapshot(q: { userId: string; threadId: string; eventType: string }): Promise<{ binding: BindingRow | null; check: BindingCheck } | null> {
  snapshot ??= listBindingCandidates({ limit: MAX_CACHED + 1 }).then(
    (rows) => {
      if (rows.length <= MAX_CACHED) return rows;
      setTimeout(dropBindingSnapshot, RECOUNT_MS).unref();
      return null;
    },
    (err: unknown) => {
      snapshot = null;
      throw err;
    },
  );
  const candidates = await snapshot;
  if (!candidates) return null;
  const chosen = choose(candidates, q);
  if (!chosen) return { binding: null, check: { id: null, stamp: null, event_type: q.eventType } };
  const { stamp, ...binding } = chosen;
  return { binding, check: { id: chosen.id, stamp, event_type: q.eventType } };
}

/** Forgets the copy (the database said it is stale); the next plan reads it again. */
export function dropBindingSnapshot(): void {
  snapshot = null;
}
