import "server-only";
import { AppError } from "../errors";
import type { BudgetRefusal } from "../repositories/runs";

// What a caller is told when a run would exceed a budget: which limit, whose (their account's or
// the API key's), how much of it is used, and when to try again (the Retry-After header).

const WHOSE: Record<BudgetRefusal["scope"], string> = { user: "your account", api_key: "this API key" };

function describe(r: BudgetRefusal): string {
  const whose = WHOSE[r.scope];
  switch (r.limit) {
    case "tokens_per_day":
      return `The daily token budget of ${whose} (${r.max} tokens) is used up: ${r.used} tokens today. It resets at 00:00 UTC.`;
    case "runs_per_minute":
      return `The run rate limit of ${whose} (${r.max} runs per minute) is reached. Retry in ${r.retryAfterSeconds} s.`;
    case "concurrent_runs":
      return `The concurrent run limit of ${whose} (${r.max} runs in progress) is reached: wait for a run to finish or cancel one.`;
  }
}

/** The 429 for a run refused by a budget; nothing of the run was written. */
export function budgetExceeded(refusal: BudgetRefusal): AppError {
  return new AppError("RATE_LIMITED", describe(refusal), {
    limit: refusal.limit,
    scope: refusal.scope,
    max: refusal.max,
    used: refusal.used,
    retryAfterSeconds: refusal.retryAfterSeconds,
  });
}
