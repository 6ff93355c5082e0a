import "server-only";
import { getPool } from "../../db";
import type { I18nObject } from "../../protocols/runner/manifest";
import { bindingColumns, type BindingRow } from "./runners";

// The agents a user may pick in the chat: the enabled bindings that would answer their messages
// (their own and everyone's; a thread's own on that thread) whose runner is still available.

const USABLE = `b.enabled and r.available and $2 = any(b.event_types)`;

export type AgentChoiceRow = { bindingId: string; runnerId: string; scope: BindingRow["scope"]; label: I18nObject };

/** The user's and everyone's bindings for `eventType`, the user's first, then newest (the order the host prefers them in). */
export async function listAgentChoices({ userId, eventType }: { userId: string; eventType: string }): Promise<AgentChoiceRow[]> {
  const { rows } = await getPool().query<AgentChoiceRow>(
    `select b.id as "bindingId", b.runner_id as "runnerId", b.scope, r.manifest->'label' as label
     from agent_bindings b join agent_runners r on r.id = b.runner_id
     where ${USABLE} and ((b.scope = 'user' and b.user_id = $1) or b.scope = 'default')
     order by case b.scope when 'user' then 0 else 1 end, b.created_at desc, b.id desc limit 50`,
    [userId, eventType],
  );
  return rows;
}

/** The binding `bindingId` if it would answer this user's event on this thread; null otherwise. */
export async function findChosenBinding(q: { bindingId: string; userId: string; threadId: string; eventType: string }): Promise<BindingRow | null> {
  const { rows } = await getPool().query<BindingRow>(
    `select ${bindingColumns("b")} from agent_bindings b join agent_runners r on r.id = b.runner_id
     where b.id = $3::uuid and ${USABLE}
       and ((b.scope = 'user' and b.user_id = $1) or b.scope = 'default' or (b.scope = 'thread' and b.thread_id::text = $4))`,
    [q.userId, q.eventType, q.bindingId, q.threadId],
  );
  return rows[0] ?? null;
}
