import "server-only";
import { env } from "../env";
import { AppError } from "../kernel/errors";
import type { BudgetRefusal, DefaultBudgets } from "../runs/repository/runs";
import { findTokenBudgetRefusal } from "./repository";

/** The budgets that apply where an admin set none (BUDGET_* in the environment). */
export const DEFAULT_BUDGETS: DefaultBudgets = {
  tokens_per_day: env.BUDGET_TOKENS_PER_DAY,
  runs_per_minute: env.BUDGET_RUNS_PER_MINUTE,
  concurrent_runs: env.BUDGET_CONCURRENT_RUNS,
};

/** The daily token budget a run in progress has used up (its user's or its API key's), or null. */
export function tokenBudgetRefusal(run: { userId: string; apiKeyId: string | null }): Promise<BudgetRefusal | null> {
  return findTokenBudgetRefusal({ ...run, budgets: DEFAULT_BUDGETS });
}

// What a caller is told when a run would exceed a budget: which limit, whose (their account's or
// the API key's), how much of it is used (and reserved by runs in progress), when to try again (the
// Retry-After header) and when the limit's window frees up (`resetsAt`).

const WHOSE: Record<BudgetRefusal["scope"], string> = { user: "your account", api_key: "this API key" };

export function describeBudgetRefusal(r: BudgetRefusal): string {
  const whose = WHOSE[r.scope];
  switch (r.limit) {
    case "tokens_per_day":
      return r.used >= r.max
        ? `The daily token budget of ${whose} (${r.max} tokens) is used up: ${r.used} tokens today. It resets at 00:00 UTC (${r.resetsAt}).`
        : `The daily token budget of ${whose} (${r.max} tokens) is held by runs in progress: ${r.used} tokens used today and ${r.reserved} reserved by runs in progress. Retry in ${r.retryAfterSeconds} s, when one may have ended; the budget resets at 00:00 UTC (${r.resetsAt}).`;
    case "runs_per_minute":
      return `The run rate limit of ${whose} (${r.max} runs per minute) is reached. Retry in ${r.retryAfterSeconds} s.`;
    case "concurrent_runs":
      return `The concurrent run limit of ${whose} (${r.max} runs in progress) is reached: wait for a run to finish or cancel one.`;
  }
}

/** The 429 for a run refused by a budget; nothing of the run was written. */
export function budgetExceeded(refusal: BudgetRefusal): AppError {
  return new AppError("RATE_LIMITED", describeBudgetRefusal(refusal), {
    limit: refusal.limit,
    scope: refusal.scope,
    max: refusal.max,
    used: refusal.used,
    ...(refusal.reserved !== undefined ? { reserved: refusal.reserved } : {}),
    retryAfterSeconds: refusal.retryAfterSeconds,
    ...(refusal.resetsAt ? { resetsAt: refusal.resetsAt } : {}),
  });
}
