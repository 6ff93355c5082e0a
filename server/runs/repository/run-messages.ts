import "server-only";
import { RUN_EVENTS_CHANNEL } from "./run-events";
import { getPool, noteWrite } from "../../db";
import type { RunStatus, TokenUsage } from "../../kernel/runs";
import { LEDGER_SLOT_SQL, NO_API_KEY } from "../../usage/repository";
import { endOpenAttemptSql, type AttemptEnd } from "./run-attempts";

// What a run writes into its thread, in as few round trips as the run allows: the messages
// it completed (numbered with the thread's next seqs, in order), and at its end those still
// unwritten together with the run's final status.

export type RunMessage = { role: "assistant" | "reasoning" | "tool"; messageId: string; content: string; metadata: Record<string, unknown> };

export type RunEnd = {
  status: Exclude<RunStatus, "queued" | "running">;
  errorCode?: string | null;
  errorMessage?: string | null;
  usage?: TokenUsage | null;
  model?: string | null;
  /** Tool calls the run streamed; unknown (a run closed by recovery) counts none in the ledger. */
  toolCalls?: number | null;
};

// $1 thread, $2 run, $3 the messages as a JSON array. `gate`: a CTE that must have returned a row
// for the messages to be written (the run's closing update, so a retried end writes them once).
const insertMessages = (gate?: string) => `
  s as (update threads set last_seq = last_seq + jsonb_array_length($3::jsonb), updated_at = now()
        ${gate ? `from ${gate} ` : ""}where threads.id = $1 and jsonb_array_length($3::jsonb) > 0 returning threads.last_seq),
  m as (insert into messages (id, thread_id, seq, role, message_id, run_id, content, metadata, created_at)
        select gen_random_uuid(), $1, s.last_seq - jsonb_array_length($3::jsonb) + x.n::int, x.role, x.message_id, $2, x.content, x.metadata, now()
        from s, rows from (jsonb_to_recordset($3::jsonb) as (role text, message_id text, content text, metadata jsonb))
          with ordinality as x(role, message_id, content, metadata, n))`;

const toJson = (messages: RunMessage[]) =>
  JSON.stringify(messages.map((m) => ({ role: m.role, message_id: m.messageId, content: m.content, metadata: m.metadata })));

const APPEND_WHILE_HELD = insertMessages("held");

/** Adds the run's completed messages while `attempt` is still the run's open execution (else nothing). */
export async function appendRunMessages({ threadId, runId, messages, attempt = 1 }: { threadId: string; runId: string; messages: RunMessage[]; attempt?: number }): Promise<void> {
  if (messages.length === 0) return;
  await getPool().query({
    name: "dispatch-append-run-messages",
    text: `with held as (select 1 from runs where id = $2 and attempt = $4 and status in ('queued', 'running')), ${APPEND_WHILE_HELD} select 1`,
    values: [threadId, runId, toJson(messages), attempt],
  });
}

// The run's line in the usage ledger (usage_daily), added in the statement that closes it: a
// day's totals never scan runs. A count the run did not report leaves the row's as it was
// (NULL until some run reports it); a run with no count at all is counted as such.
const tokens = (field: string) => `(closed.usage->>'${field}')::bigint`;
const addUnlessUnknown = (column: string) => `${column} = case when excluded.${column} is null then d.${column} else coalesce(d.${column}, 0) + excluded.${column} end`;
const TOKEN_COLUMNS = ["input_tokens", "output_tokens", "total_tokens", "cached_input_tokens", "reasoning_tokens"];
const ADD_TO_LEDGER = `
  ledger as (insert into usage_daily as d (day, user_id, api_key_id, runner, model, slot, runs, failed_runs, runs_without_usage,
      ${TOKEN_COLUMNS.join(", ")}, tool_calls, duration_ms)
    select (now() at time zone 'UTC')::date, closed.user_id, coalesce(closed.api_key_id, '${NO_API_KEY}'), closed.runner, coalesce(closed.model, ''), ${LEDGER_SLOT_SQL},
      1, (closed.status = 'failed')::int,
      (coalesce(closed.usage->>'inputTokens', closed.usage->>'outputTokens', closed.usage->>'totalTokens') is null)::int,
      ${tokens("inputTokens")}, ${tokens("outputTokens")}, ${tokens("totalTokens")}, ${tokens("cachedInputTokens")}, ${tokens("reasoningTokens")},
      coalesce(closed.tool_calls, 0), greatest(0, round(extract(epoch from closed.took) * 1000))::bigint
    from closed
    on conflict (day, user_id, api_key_id, runner, model, slot) do update set runs = d.runs + 1, failed_runs = d.failed_runs + excluded.failed_runs,
      runs_without_usage = d.runs_without_usage + excluded.runs_without_usage, ${TOKEN_COLUMNS.map(addUnlessUnknown).join(", ")},
      tool_calls = d.tool_calls + excluded.tool_calls, duration_ms = d.duration_ms + excluded.duration_ms)`;

/** A run's closing events (ends for whatever was open, then the terminal one), from `firstSeq` on. */
export type ClosingEvents = { firstSeq: number; types: string[]; events: string[] };

/**
 * Writes the run's last messages and closes the run, in one statement. With `closing`, the
 * closing events go in the same statement, so a closed run always has its terminal event. A run
 * closed already (by an earlier attempt of the same write, or by recovery) gets nothing: no
 * messages twice, no second terminal event, and `closed: false`. Closing events whose place in
 * the log was taken meanwhile (an executor's late batch, committed after the closer read the log)
 * fail the whole statement with a unique violation, so the run stays open and its closer reads the
 * log again: a closed run never lacks its terminal event. Followers on other instances are
 * notified at commit.
 */
export async function finishRun({
  threadId,
  runId,
  messages,
  end,
  closing,
  attempt,
  attemptEnd = "finished",
  notify = true,
}: {
  threadId: string;
  runId: string;
  messages: RunMessage[];
  end: RunEnd;
  closing?: ClosingEvents;
  /** The execution closing it: nothing happens once another took the run over. */
  attempt?: number;
  /** Why the run's open execution ends with it: `finished` (its executor closed it), `deadline`, or `lease_expired` (closed after its executor stopped reporting). */
  attemptEnd?: AttemptEnd;
  /**
   * Whether this statement notifies other instances of the closing events. PostgreSQL serializes
   * the commits of every transaction that notifies (a database-wide lock held through the commit),
   * so an executor leaves it to its event log's next write (server/runs/event-log.ts announce).
   */
  notify?: boolean;
}): Promise<{ closed: boolean }> {
  const { rows } = await getPool().query<{ closed: boolean; userId: string | null }>({
    name: "dispatch-finish-run-with-events",
    text: `with closed as (update runs set status = $4, finished_at = now(), error_code = $5, error_message = $6, usage = coalesce($7::jsonb, usage),
       model = coalesce($8, model), tool_calls = coalesce($13, tool_calls)
     where id = $2 and status in ('queued', 'running') and ($14::int is null or attempt = $14)
     returning id, user_id, api_key_id, runner, model, status, usage, tool_calls, finished_at - coalesce(started_at, created_at) as took, created_at),
     ${insertMessages("closed")},
     ${ADD_TO_LEDGER},
     ${endOpenAttemptSql("closed", "$15")},
     ev as (insert into run_event_batches (run_id, first_seq, last_seq, types, events, created_at, run_created_at)
       select closed.id, $9::int, $10::int, $11, $12, now(), closed.created_at from closed where $9::int is not null
       returning run_id, last_seq)
     select true as closed, user_id::text as "userId" from closed
     union all
     select pg_notify('${RUN_EVENTS_CHANNEL}', run_id::text || ':' || last_seq)::text is null, null from ev where $16::boolean`,
    values: [
      threadId,
      runId,
      toJson(messages),
      end.status,
      end.errorCode ?? null,
      end.errorMessage ?? null,
      end.usage ? JSON.stringify(end.usage) : null,
      end.model ?? null,
      closing ? closing.firstSeq : null,
      closing ? closing.firstSeq + closing.events.length - 1 : null,
      closing ? closing.types.join(" ") : null,
      closing ? closing.events.join("\n") : null,
      end.toolCalls ?? null,
      attempt ?? null,
      attemptEnd,
      notify,
    ],
  });
  // The run's messages and end are its user's writes: their next replica reads wait for them.
  for (const r of rows) if (r.userId) noteWrite(r.userId);
  return { closed: rows.some((r) => r.closed) };
}
