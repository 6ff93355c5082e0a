import "server-only";
import { getPool, readPool } from "../db";
import { toBudgetRefusal, type BudgetRefusal, type BudgetRefusalJson, type DefaultBudgets } from "../runs/repository/runs";

// The usage ledger (usage_daily, added to by the statement that closes each run) and the budgets
// admins set (usage_limits). Sums are read as float8: token totals stay exact far beyond any
// realistic day, and arrive as numbers rather than bigint strings.

/** The ledger's api_key_id for runs started without an API key (a primary key cannot hold NULL). */
export const NO_API_KEY = "00000000-0000-0000-0000-000000000000";

/**
 * The slot of usage_daily a statement adds to: its connection's, so concurrent run ends (each on a
 * connection of its own) add to different rows instead of waiting on each other's commits.
 */
export const LEDGER_SLOT_SQL = "(pg_backend_pid() % 8)::smallint";

export type LedgerRow = {
  day: string;
  userId: string;
  userEmail: string;
  apiKeyId: string | null;
  apiKeyName: string | null;
  apiKeyPrefix: string | null;
  runner: string;
  model: string | null;
  runs: number;
  failedRuns: number;
  runsWithoutUsage: number;
  inputTokens: number | null;
  outputTokens: number | null;
  totalTokens: number | null;
  cachedInputTokens: number | null;
  reasoningTokens: number | null;
  toolCalls: number;
  durationMs: number;
};

/** The ledger's rows from `from` to `to` (UTC days, inclusive), newest first, for one user or everyone. */
export async function findLedgerRows({ from, to, userId }: { from: string; to: string; userId?: string }): Promise<LedgerRow[]> {
  // A report tolerates a read replica's lag, except for a user's own runs just ended (docs/scaling.md).
  const { rows } = await readPool({ after: userId ? { user: userId } : undefined }).query<LedgerRow>(
    `select to_char(d.day, 'YYYY-MM-DD') as day, d.user_id as "userId", u.email as "userEmail",
       nullif(d.api_key_id, '${NO_API_KEY}') as "apiKeyId", k.name as "apiKeyName", k.prefix as "apiKeyPrefix",
       d.runner, nullif(d.model, '') as model, d.runs, d.failed_runs as "failedRuns", d.runs_without_usage as "runsWithoutUsage",
       d.input_tokens as "inputTokens", d.output_tokens as "outputTokens", d.total_tokens as "totalTokens",
       d.cached_input_tokens as "cachedInputTokens", d.reasoning_tokens as "reasoningTokens",
       d.tool_calls as "toolCalls", d.duration_ms as "durationMs"
     from (select day, user_id, api_key_id, runner, model, sum(runs)::int as runs, sum(failed_runs)::int as failed_runs,
             sum(runs_without_usage)::int as runs_without_usage, sum(input_tokens)::float8 as input_tokens,
             sum(output_tokens)::float8 as output_tokens, sum(total_tokens)::float8 as total_tokens,
             sum(cached_input_tokens)::float8 as cached_input_tokens, sum(reasoning_tokens)::float8 as reasoning_tokens,
             sum(tool_calls)::int as tool_calls, sum(duration_ms)::float8 as duration_ms
           from usage_daily
           where day between $1::date and $2::date and ($3::uuid is null or user_id = $3)
           group by day, user_id, api_key_id, runner, model) d
       join users u on u.id = d.user_id left join api_keys k on k.id = d.api_key_id
     order by d.day desc, u.email, d.runner, d.model
     limit 10000`,
    [from, to, userId ?? null],
  );
  return rows;
}

export type LimitSubject = "default" | "user" | "api_key";
export type LimitValues = { tokensPerDay: number | null; runsPerMinute: number | null; concurrentRuns: number | null };
export type LimitRow = LimitValues & { subject: LimitSubject; subjectId: string; label: string | null; updatedAt: Date };

/** Every budget an admin set, with the user's email or the key's name and owner as its label. */
export async function listLimits(): Promise<LimitRow[]> {
  const { rows } = await getPool().query<LimitRow>(
    `select l.subject, l.subject_id as "subjectId", coalesce(u.email, k.name || ' (' || ku.email || ')') as label,
       l.tokens_per_day::float8 as "tokensPerDay", l.runs_per_minute as "runsPerMinute", l.concurrent_runs as "concurrentRuns", l.updated_at as "updatedAt"
     from usage_limits l
       left join users u on l.subject = 'user' and u.id = l.subject_id
       left join api_keys k on l.subject = 'api_key' and k.id = l.subject_id
       left join users ku on ku.id = k.user_id
     order by l.subject, label`,
  );
  return rows;
}

/** Sets a subject's budgets (a row of NULLs is kept: it still overrides nothing). */
export async function upsertLimits({ subject, subjectId, values }: { subject: LimitSubject; subjectId: string; values: LimitValues }): Promise<void> {
  await getPool().query(
    `insert into usage_limits (subject, subject_id, tokens_per_day, runs_per_minute, concurrent_runs, updated_at)
     values ($1, $2, $3, $4, $5, now())
     on conflict (subject, subject_id) do update set tokens_per_day = excluded.tokens_per_day, runs_per_minute = excluded.runs_per_minute,
       concurrent_runs = excluded.concurrent_runs, updated_at = now()`,
    [subject, subjectId, values.tokensPerDay, values.runsPerMinute, values.concurrentRuns],
  );
}

export async function deleteLimits({ subject, subjectId }: { subject: LimitSubject; subjectId: string }): Promise<void> {
  await getPool().query(`delete from usage_limits where subject = $1 and subject_id = $2`, [subject, subjectId]);
}

/** The rows that make up a user's budgets: the default's and their own. */
export async function findUserLimitRows({ userId }: { userId: string }): Promise<{ defaults: LimitValues | null; own: LimitValues | null }> {
  const { rows } = await getPool().query<LimitValues & { subject: LimitSubject }>(
    `select subject, tokens_per_day::float8 as "tokensPerDay", runs_per_minute as "runsPerMinute", concurrent_runs as "concurrentRuns"
     from usage_limits where (subject = 'default' and subject_id = '${NO_API_KEY}') or (subject = 'user' and subject_id = $1)`,
    [userId],
  );
  const pick = (s: LimitSubject) => rows.find((r) => r.subject === s) ?? null;
  return { defaults: pick("default"), own: pick("user") };
}

/** What the user's runs used today (UTC), runs started in the last minute and runs in progress. */
export async function findUserActivity({ userId }: { userId: string }): Promise<{ tokensToday: number; runsLastMinute: number; runsInProgress: number }> {
  const { rows } = await getPool().query<{ tokensToday: number; runsLastMinute: number; runsInProgress: number }>(
    `select (select coalesce(sum(total_tokens), 0)::float8 from usage_daily where day = (now() at time zone 'UTC')::date and user_id = $1) as "tokensToday",
       (select count(*)::int from runs where user_id = $1 and created_at > now() - interval '1 minute') as "runsLastMinute",
       (select count(*)::int from runs where status in ('queued', 'running') and user_id = $1) as "runsInProgress"`,
    [userId],
  );
  return rows[0]!;
}

/**
 * The daily token budget (the user's, or the API key's the run was started with) that is used up,
 * or null while both have tokens left: checked before a run in progress asks the host for a model.
 */
export async function findTokenBudgetRefusal({ userId, apiKeyId, budgets }: { userId: string; apiKeyId: string | null; budgets: DefaultBudgets }): Promise<BudgetRefusal | null> {
  const { rows } = await getPool().query<{ refusal: BudgetRefusalJson | null }>({
    name: "dispatch-token-budget",
    text: "select dispatch_run_limits($1, $2, $3, true) as refusal",
    values: [userId, apiKeyId, JSON.stringify(budgets)],
  });
  const r = rows[0]?.refusal;
  return r ? toBudgetRefusal(r) : null;
}
