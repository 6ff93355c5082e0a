import "server-only";
import { getPool } from "../../db";
import type { TokenUsage } from "../../kernel/runs";
import { LEDGER_SLOT_SQL, NO_API_KEY } from "../../usage/repository";

// The summary kept per conversation for runners whose context policy is summary_tail
// (summary.ts), and the ledger line its model call costs.

export type SummaryRow = { summary: string; coversSeq: number; messageCount: number; model: string; refreshedAt: Date };

export async function findConversationSummary({ threadId }: { threadId: string }): Promise<SummaryRow | null> {
  const { rows } = await getPool().query<SummaryRow>(
    `select summary, covers_seq as "coversSeq", message_count as "messageCount", model, refreshed_at as "refreshedAt"
     from conversation_summaries where thread_id = $1`,
    [threadId],
  );
  return rows[0] ?? null;
}

/**
 * Keeps the thread's new summary and adds its model call to the usage ledger (usage_daily, under the
 * run's user, API key and runner, with no run counted), in one statement.
 */
export async function saveConversationSummary(opts: {
  threadId: string;
  runId: string;
  summary: string;
  coversSeq: number;
  messageCount: number;
  model: string;
  usage: TokenUsage;
}): Promise<void> {
  const u = opts.usage;
  await getPool().query(
    `with saved as (insert into conversation_summaries as s (thread_id, summary, covers_seq, message_count, model, input_tokens, output_tokens, refreshed_at)
         values ($1, $3, $4, $5, $6, $7::int, $8::int, now())
         on conflict (thread_id) do update set summary = excluded.summary, covers_seq = excluded.covers_seq, message_count = excluded.message_count,
           model = excluded.model, input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens, refreshed_at = now()
         returning thread_id)
     insert into usage_daily as d (day, user_id, api_key_id, runner, model, slot, input_tokens, output_tokens, total_tokens)
     select (now() at time zone 'UTC')::date, r.user_id, coalesce(r.api_key_id, '${NO_API_KEY}'), r.runner, $6::text, ${LEDGER_SLOT_SQL}, $7::bigint, $8::bigint, $9::bigint
     from runs r, saved where r.id = $2::uuid and coalesce($7::bigint, $8::bigint, $9::bigint) is not null
     on conflict (day, user_id, api_key_id, runner, model, slot) do update set
       input_tokens = coalesce(d.input_tokens, 0) + coalesce(excluded.input_tokens, 0),
       output_tokens = coalesce(d.output_tokens, 0) + coalesce(excluded.output_tokens, 0),
       total_tokens = coalesce(d.total_tokens, 0) + coalesce(excluded.total_tokens, 0)`,
    [opts.threadId, opts.runId, opts.summary, opts.coversSeq, opts.messageCount, opts.model, u.inputTokens ?? null, u.outputTokens ?? null, u.totalTokens ?? null],
  );
}
