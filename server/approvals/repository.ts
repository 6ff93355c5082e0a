import "server-only";
import { getPool } from "../db";
import type { ApprovalModel } from "../generated/prisma/models";
import type { RunApprovalPolicy } from "./policy";

// Every statement about approvals. A decision and a run's claim are conditional updates of the
// row, so two instances deciding, or two runs continuing, cannot both win.

export type ApprovalStatus = "pending" | "approved" | "denied" | "expired" | "superseded";
export type ApprovalRow = Omit<ApprovalModel, "status" | "input" | "editedInput"> & { status: ApprovalStatus; input: unknown; editedInput: unknown };

const columns = (t = "") => `${t}id, ${t}run_id as "runId", ${t}thread_id as "threadId", ${t}user_id as "userId", ${t}tool_call_id as "toolCallId",
  ${t}action, ${t}input, ${t}status, ${t}policy, ${t}decided_by as "decidedBy", ${t}decided_as_admin as "decidedAsAdmin", ${t}decided_at as "decidedAt",
  ${t}reason, ${t}edited_input as "editedInput", ${t}expires_at as "expiresAt", ${t}resolved_run_id as "resolvedRunId", ${t}created_at as "createdAt"`;
const COLUMNS = columns();

/** A claimed approval, with the assistant message its call was streamed under (from its pending card). */
export type ClaimedApproval = ApprovalRow & { parentMessageId: string | null };

/** The message id of the pending card a thread keeps for an approval until a run resolves it. */
export const placeholderMessageId = (approvalId: string) => `approval_${approvalId}`;

/**
 * The run's approval policy: frozen on first use. A run started with an auto-approving API key,
 * or through an auto-approving binding, is `auto`; otherwise the user's choice at that moment.
 */
export async function freezeRunPolicy({ runId, apiKeyHash }: { runId: string; apiKeyHash: string | null }): Promise<RunApprovalPolicy> {
  const { rows } = await getPool().query<{ policy: RunApprovalPolicy }>({
    name: "dispatch-approvals-freeze-policy",
    text: `update runs r set approval_policy = coalesce(r.approval_policy,
             case when exists (select 1 from api_keys k where k.key_hash = $2 and k.user_id = r.user_id and k.auto_approve and k.revoked_at is null)
                    or exists (select 1 from agent_bindings b where b.id = r.binding_id and b.auto_approve)
                  then 'auto' else (select u.approval_policy from users u where u.id = r.user_id) end)
           where r.id = $1 returning r.approval_policy as policy`,
    values: [runId, apiKeyHash],
  });
  return rows[0]?.policy ?? "always";
}

/**
 * Records the request a call became; a call that already asked (its step repeated after a crash)
 * gets the request it made then, so it is asked once.
 */
export async function insertApproval(row: {
  id: string;
  runId: string;
  threadId: string;
  userId: string;
  toolCallId: string;
  action: string;
  input: unknown;
  policy: string;
  expiresAt: Date;
}): Promise<ApprovalRow> {
  // The no-op update makes the conflicting row the one returned.
  const { rows } = await getPool().query<ApprovalRow>(
    `insert into approvals (id, run_id, thread_id, user_id, tool_call_id, action, input, policy, expires_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9) on conflict (run_id, tool_call_id) do update set tool_call_id = excluded.tool_call_id
     returning ${COLUMNS}`,
    [row.id, row.runId, row.threadId, row.userId, row.toolCallId, row.action, JSON.stringify(row.input), row.policy, row.expiresAt],
  );
  return rows[0]!;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The approval with this id; null for any id that is not one (not a UUID included). */
export async function findApproval({ id }: { id: string }): Promise<ApprovalRow | null> {
  if (!UUID.test(id)) return null;
  const { rows } = await getPool().query<ApprovalRow>(`select ${COLUMNS} from approvals where id = $1`, [id]);
  return rows[0] ?? null;
}

export async function findApprovals({ ids }: { ids: string[] }): Promise<ApprovalRow[]> {
  const valid = ids.filter((id) => UUID.test(id));
  if (valid.length === 0) return [];
  const { rows } = await getPool().query<ApprovalRow>(`select ${COLUMNS} from approvals where id = any($1::uuid[])`, [valid]);
  return rows;
}

export async function findApprovalsOfRun({ runId }: { runId: string }): Promise<ApprovalRow[]> {
  const { rows } = await getPool().query<ApprovalRow>(`select ${COLUMNS} from approvals where run_id = $1 order by created_at, tool_call_id`, [runId]);
  return rows;
}

/**
 * Records a decision on a pending, unexpired approval; null when it was not pending (decided,
 * expired, superseded) or has expired meanwhile: the caller reads the row to say which.
 */
export async function recordDecision(d: {
  id: string;
  status: "approved" | "denied";
  decidedBy: string;
  asAdmin: boolean;
  reason: string | null;
  editedInput: unknown;
}): Promise<ApprovalRow | null> {
  const { rows } = await getPool().query<ApprovalRow>(
    `update approvals set status = $2, decided_by = $3, decided_as_admin = $4, decided_at = now(), reason = $5, edited_input = $6
     where id = $1 and status = 'pending' and expires_at > now() returning ${COLUMNS}`,
    [d.id, d.status, d.decidedBy, d.asAdmin, d.reason, d.editedInput === undefined ? null : JSON.stringify(d.editedInput)],
  );
  return rows[0] ?? null;
}

/** Marks a pending approval whose time is up as expired (idempotent); the row as it is now. */
export async function expireIfDue({ id }: { id: string }): Promise<ApprovalRow | null> {
  const { rows } = await getPool().query<ApprovalRow>(
    `with e as (update approvals set status = 'expired' where id = $1 and status = 'pending' and expires_at <= now() returning ${COLUMNS})
     select * from e union all select ${COLUMNS} from approvals where id = $1 and not exists (select 1 from e)`,
    [id],
  );
  return rows[0] ?? null;
}

/**
 * Hands a run of the thread the approvals it carries to the model, each exactly once: the decided
 * ones, those whose time is up (now expired) and, when the run brings a new user message
 * (`supersede`), the pending ones (now superseded). Their pending cards leave the thread in the
 * same statement; the run records each outcome as the call's tool message.
 */
export async function claimApprovalsForRun({ threadId, runId, supersede }: { threadId: string; runId: string; supersede: boolean }): Promise<ClaimedApproval[]> {
  const { rows } = await getPool().query<ClaimedApproval>({
    name: "dispatch-approvals-claim",
    text: `with c as (
             update approvals set resolved_run_id = $2,
               status = case when status <> 'pending' then status when expires_at <= now() then 'expired' else 'superseded' end
             where thread_id = $1 and resolved_run_id is null and run_id <> $2
               and (status <> 'pending' or expires_at <= now() or $3::boolean)
             returning ${COLUMNS}),
           d as (delete from messages m using c where m.thread_id = $1 and m.message_id = 'approval_' || c.id::text
                 returning m.message_id, m.metadata ->> 'parent_message_id' as parent)
           select c.*, d.parent as "parentMessageId" from c left join d on d.message_id = 'approval_' || c.id::text
           order by c."createdAt", c."toolCallId"`,
    values: [threadId, runId, supersede],
  });
  return rows;
}

/** The approvals this run claimed already (an execution that took the run over carries them again). */
export async function findApprovalsClaimedBy({ runId }: { runId: string }): Promise<ClaimedApproval[]> {
  const { rows } = await getPool().query<ClaimedApproval>(
    `select ${COLUMNS}, null as "parentMessageId" from approvals where resolved_run_id = $1 order by created_at, tool_call_id`,
    [runId],
  );
  return rows;
}

/** A waiting approval with the title of its thread and its owner's email, for the inboxes. */
export type PendingApprovalRow = ApprovalRow & { threadTitle: string; ownerEmail: string };

/** The approvals a user (or everyone, for an admin) has waiting, newest first. */
export async function listPendingApprovals({ userId, limit }: { userId: string | null; limit: number }): Promise<PendingApprovalRow[]> {
  const { rows } = await getPool().query<PendingApprovalRow>(
    `select ${columns("a.")}, t.title as "threadTitle", o.email as "ownerEmail"
     from approvals a join threads t on t.id = a.thread_id join users o on o.id = a.user_id
     where a.status = 'pending' and a.expires_at > now() and ($1::uuid is null or a.user_id = $1)
     order by a.created_at desc limit $2`,
    [userId, limit],
  );
  return rows;
}

export async function findUserApprovalPolicy({ userId }: { userId: string }): Promise<string | null> {
  const { rows } = await getPool().query<{ policy: string }>(`select approval_policy as policy from users where id = $1`, [userId]);
  return rows[0]?.policy ?? null;
}

export async function setUserApprovalPolicy({ userId, policy }: { userId: string; policy: string }): Promise<void> {
  await getPool().query(`update users set approval_policy = $2 where id = $1`, [userId, policy]);
}

/** An approval as the admin console's run page lists it: who decided, when, on whose behalf. */
export type AdminApprovalRow = ApprovalRow & { decidedByEmail: string | null; ownerEmail: string };

/** The approvals a run asked for or carried to the model, oldest first. */
export async function listApprovalsForRun({ runId }: { runId: string }): Promise<AdminApprovalRow[]> {
  const { rows } = await getPool().query<AdminApprovalRow>(
    `select ${columns("a.")}, d.email as "decidedByEmail", o.email as "ownerEmail"
     from approvals a join users o on o.id = a.user_id left join users d on d.id = a.decided_by
     where a.run_id = $1 or a.resolved_run_id = $1 order by a.created_at, a.tool_call_id limit 100`,
    [runId],
  );
  return rows;
}

/**
 * The approval a thread holds for a tool call id that no run has carried yet, or that `runId`
 * carries, if any (external runners retry by id).
 */
export async function findOpenApprovalForCall({ threadId, toolCallId, runId }: { threadId: string; toolCallId: string; runId: string }): Promise<ApprovalRow | null> {
  const { rows } = await getPool().query<ApprovalRow>(
    `select ${COLUMNS} from approvals where thread_id = $1 and tool_call_id = $2 and (resolved_run_id is null or resolved_run_id = $3)
     order by created_at desc limit 1`,
    [threadId, toolCallId, runId],
  );
  return rows[0] ?? null;
}

/**
 * Hands one approval that is no longer pending (or whose time is up: then expired) to `runId`,
 * once, with the assistant message its call was streamed under (from its pending card); null
 * when it is still pending or another run has it.
 */
export async function claimApproval({ id, runId }: { id: string; runId: string }): Promise<ClaimedApproval | null> {
  const { rows } = await getPool().query<ClaimedApproval>(
    `with c as (
       update approvals set resolved_run_id = $2, status = case when status = 'pending' then 'expired' else status end
       where id = $1 and resolved_run_id is null and (status <> 'pending' or expires_at <= now()) returning ${COLUMNS})
     select c.*, (select m.metadata ->> 'parent_message_id' from messages m
                  where m.thread_id = c."threadId" and m.message_id = 'approval_' || c.id::text) as "parentMessageId" from c`,
    [id, runId],
  );
  return rows[0] ?? null;
}

/** Removes an approval's pending card once its call's answer is in the thread instead. */
export async function deletePendingCard({ threadId, approvalId }: { threadId: string; approvalId: string }): Promise<void> {
  await getPool().query(`delete from messages where thread_id = $1 and message_id = $2`, [threadId, placeholderMessageId(approvalId)]);
}

/** Gives back the approvals a run claimed but could not carry (its agent was never reached): the thread's next run claims them. */
export async function releaseClaimedApprovals({ runId }: { runId: string }): Promise<void> {
  await getPool().query(`update approvals set resolved_run_id = null where resolved_run_id = $1`, [runId]);
}
