import "server-only";
import { env } from "../env";
import { AppError } from "../kernel/errors";
import { deleteLimits, findLedgerRows, findUserActivity, findUserLimitRows, listLimits, NO_API_KEY, upsertLimits, type LedgerRow, type LimitSubject, type LimitValues } from "./repository";

// Reading the usage ledger and the budgets: the console's usage page and budget editor (admins),
// and a user's own usage and what is left of their budget (the chat's settings).

const DAY_MS = 86_400_000;
const MAX_DAYS = 366;

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/** The ledger for a range of UTC days (inclusive); at most a year, `to` not before `from`. */
export async function usageReport({ from, to }: { from: string; to: string }): Promise<LedgerRow[]> {
  const days = (Date.parse(to) - Date.parse(from)) / DAY_MS;
  if (!(days >= 0)) throw new AppError("BAD_REQUEST", "to: must be the same day as from or later", { field: "to" });
  if (days >= MAX_DAYS) throw new AppError("BAD_REQUEST", `to: a report covers at most ${MAX_DAYS} days`, { field: "to" });
  return findLedgerRows({ from, to });
}

const CSV_COLUMNS: (keyof LedgerRow)[] = [
  "day",
  "userEmail",
  "apiKeyName",
  "apiKeyPrefix",
  "runner",
  "model",
  "runs",
  "failedRuns",
  "runsWithoutUsage",
  "inputTokens",
  "outputTokens",
  "totalTokens",
  "cachedInputTokens",
  "reasoningTokens",
  "toolCalls",
  "durationMs",
];

// A cell that a spreadsheet would read as a formula is prefixed with a quote (CSV injection).
function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text) && typeof value === "string") text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The ledger rows as CSV (RFC 4180), a header line first; an unknown count is an empty cell. */
export function ledgerCsv(rows: LedgerRow[]): string {
  const lines = [CSV_COLUMNS.join(","), ...rows.map((r) => CSV_COLUMNS.map((c) => csvCell(r[c])).join(","))];
  return `${lines.join("\r\n")}\r\n`;
}

export type Budgets = LimitValues;

const ENV_BUDGETS: Budgets = {
  tokensPerDay: env.BUDGET_TOKENS_PER_DAY ?? null,
  runsPerMinute: env.BUDGET_RUNS_PER_MINUTE ?? null,
  concurrentRuns: env.BUDGET_CONCURRENT_RUNS ?? null,
};

/** The budgets that hold for a user: their own, else the console's default, else the environment's, kind by kind. */
function effectiveBudgets(own: Budgets | null, defaults: Budgets | null): Budgets {
  return {
    tokensPerDay: own?.tokensPerDay ?? defaults?.tokensPerDay ?? ENV_BUDGETS.tokensPerDay,
    runsPerMinute: own?.runsPerMinute ?? defaults?.runsPerMinute ?? ENV_BUDGETS.runsPerMinute,
    concurrentRuns: own?.concurrentRuns ?? defaults?.concurrentRuns ?? ENV_BUDGETS.concurrentRuns,
  };
}

/** A user's own usage: the last days from the ledger, today's activity, their budgets and what is left of them. */
export async function myUsage({ userId, days = 14 }: { userId: string; days?: number }) {
  const to = new Date();
  const from = new Date(to.getTime() - (days - 1) * DAY_MS);
  const [rows, activity, limitRows] = await Promise.all([
    findLedgerRows({ from: isoDay(from), to: isoDay(to), userId }),
    findUserActivity({ userId }),
    findUserLimitRows({ userId }),
  ]);
  const budgets = effectiveBudgets(limitRows.own, limitRows.defaults);
  const byDay = new Map<string, { day: string; runs: number; totalTokens: number | null }>();
  for (const r of rows) {
    const d = byDay.get(r.day) ?? { day: r.day, runs: 0, totalTokens: null };
    d.runs += r.runs;
    if (r.totalTokens !== null) d.totalTokens = (d.totalTokens ?? 0) + r.totalTokens;
    byDay.set(r.day, d);
  }
  const models = new Map<string, { model: string; runs: number; totalTokens: number | null }>();
  for (const r of rows) {
    const key = r.model ?? r.runner;
    const m = models.get(key) ?? { model: key, runs: 0, totalTokens: null };
    m.runs += r.runs;
    if (r.totalTokens !== null) m.totalTokens = (m.totalTokens ?? 0) + r.totalTokens;
    models.set(key, m);
  }
  return {
    days: [...byDay.values()],
    models: [...models.values()].sort((a, b) => (b.totalTokens ?? 0) - (a.totalTokens ?? 0)),
    today: activity,
    budgets,
    remaining: {
      tokensToday: budgets.tokensPerDay === null ? null : Math.max(0, budgets.tokensPerDay - activity.tokensToday),
      runsThisMinute: budgets.runsPerMinute === null ? null : Math.max(0, budgets.runsPerMinute - activity.runsLastMinute),
      concurrentRuns: budgets.concurrentRuns === null ? null : Math.max(0, budgets.concurrentRuns - activity.runsInProgress),
    },
  };
}

/** Every budget set in the console, and the environment's defaults under them. */
export async function listBudgets() {
  return { environment: ENV_BUDGETS, rows: await listLimits() };
}

/** Sets the budgets of the default, a user or an API key; all three NULL removes the row. */
export async function setBudgets({ subject, subjectId, values }: { subject: LimitSubject; subjectId?: string; values: Budgets }): Promise<void> {
  const id = subject === "default" ? NO_API_KEY : subjectId;
  if (!id) throw new AppError("BAD_REQUEST", "subjectId: name the user or API key whose budgets these are", { field: "subjectId" });
  if (values.tokensPerDay === null && values.runsPerMinute === null && values.concurrentRuns === null) {
    await deleteLimits({ subject, subjectId: id });
    return;
  }
  await upsertLimits({ subject, subjectId: id, values });
}
