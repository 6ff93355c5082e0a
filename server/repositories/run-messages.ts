import "server-only";
import { getPool } from "../db";
import type { RunStatus, TokenUsage } from "../runs/types";

// What a run writes into its thread, in as few round trips as the run allows: the messages
// it completed (numbered with the thread's next seqs, in order), and at its end those still
// unwritten together with the run's final status.

export type RunMessage = { role: "assistant" | "tool"; messageId: string; content: string; metadata: Record<string, unknown> };

export type RunEnd = {
  status: Exclude<RunStatus, "queued" | "running">;
  errorCode?: string | null;
  errorMessage?: string | null;
  usage?: TokenUsage | null;
  model?: string | null;
};

// $1 thread, $2 run, $3 the messages as a JSON array.
const INSERT_MESSAGES = `
  s as (update threads set last_seq = last_seq + jsonb_array_length($3::jsonb), updated_at = now()
        where id = $1 and jsonb_array_length($3::jsonb) > 0 returning last_seq),
  m as (insert into messages (id, thread_id, seq, role, message_id, run_id, content, metadata, created_at)
        select gen_random_uuid(), $1, s.last_seq - jsonb_array_length($3::jsonb) + x.n::int, x.role, x.message_id, $2, x.content, x.metadata, now()
        from s, rows from (jsonb_to_recordset($3::jsonb) as (role text, message_id text, content text, metadata jsonb))
          with ordinality as x(role, message_id, content, metadata, n))`;

const toJson = (messages: RunMessage[]) =>
  JSON.stringify(messages.map((m) => ({ role: m.role, message_id: m.messageId, content: m.content, metadata: m.metadata })));

export async function appendRunMessages({ threadId, runId, messages }: { threadId: string; runId: string; messages: RunMessage[] }): Promise<void> {
  if (messages.length === 0) return;
  await getPool().query({ name: "dispatch-append-run-messages", text: `with ${INSERT_MESSAGES} select 1`, values: [threadId, runId, toJson(messages)] });
}

/** Writes the run's last messages and closes the run (unless it was closed already), in one statement. */
export async function finishRun({ threadId, runId, messages, end }: { threadId: string; runId: string; messages: RunMessage[]; end: RunEnd }): Promise<void> {
  await getPool().query({
    name: "dispatch-finish-run",
    text: `with ${INSERT_MESSAGES}
     update runs set status = $4, finished_at = now(), error_code = $5, error_message = $6, usage = coalesce($7::jsonb, usage),
       model = coalesce($8, model)
     where id = $2 and status in ('queued', 'running')`,
    values: [threadId, runId, toJson(messages), end.status, end.errorCode ?? null, end.errorMessage ?? null, end.usage ? JSON.stringify(end.usage) : null, end.model ?? null],
  });
}
