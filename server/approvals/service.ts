import "server-only";
import { PROTOCOL_VERSION } from "@ag-ui/core";
import { z } from "zod";
import { resumePayloadInput } from "./agent-interrupts";
import { decideApproval, MAX_REASON_CHARS, type Decider, type Decision } from "./decide";
import { AGENT_INTERRUPT_ACTION, approvalCard, approvalQuestion, approvalView, currentStatus, type ApprovalView } from "./preview";
import { DEFAULT_APPROVAL_POLICY, userApprovalPolicySchema, type UserApprovalPolicy } from "./policy";
import { findApproval, findApprovalsOfRun, findUserApprovalPolicy, listApprovalsForRun, listPendingApprovals, setUserApprovalPolicy, type ApprovalRow } from "./repository";
import { AppError } from "../kernel/errors";
import { invalidInput } from "../kernel/errors";
import type { ResumeEntry, RunAgentInput } from "../protocols/ag-ui/run-input";
import { findRunByClientId, findRunInput, type RunRow } from "../runs/repository/runs";
import { findUserByEmail } from "../accounts/repository/users";
import type { UiSchema } from "../ui-schema/schema";
import { startRun, type KeepAlive } from "../runs/service/runs";

// Deciding an approval and continuing the run that asked for it. The decision is recorded first
// (approvals/decide.ts); once every request of that run is decided, one continuation run of the
// thread (runId `resume-<run>`, so retries and racing decisions name the same task) carries the
// outcomes to the model: approved actions run there, exactly once.

export type DecisionAnswer = { approval: ApprovalView & { uiSchema: UiSchema }; run: RunRow | null };

/** The runId of the run that continues from an interrupted run. */
const continuationRunId = (interruptedRunId: string) => `resume-${interruptedRunId}`;

// The continuation reads times in the zone the interrupted run did, and draws its cards in that
// run's language: the person who asked is the one reading the outcome.
async function readerProps(runId: string): Promise<Record<string, string>> {
  const props = ((await findRunInput({ id: runId }))?.input as { forwardedProps?: unknown } | undefined)?.forwardedProps;
  const { timeZone, locale } = props && typeof props === "object" ? (props as { timeZone?: unknown; locale?: unknown }) : {};
  return { ...(typeof timeZone === "string" ? { timeZone } : {}), ...(typeof locale === "string" ? { locale } : {}) };
}

async function continuationInput(row: ApprovalRow, siblings: ApprovalRow[]): Promise<RunAgentInput> {
  return {
    threadId: row.threadId,
    runId: continuationRunId(row.runId),
    protocolVersion: PROTOCOL_VERSION,
    messages: [],
    tools: [],
    context: [],
    forwardedProps: await readerProps(row.runId),
    resume: siblings.map((s) => ({ interruptId: s.id, status: s.status === "approved" ? "resolved" : "cancelled" })),
  };
}

/**
 * Starts (or finds) the run that continues from `row`'s run, once none of its requests is
 * pending. Null while some still are, or when the thread is busy with another run: that run's
 * successor carries the decision then.
 */
async function continueAfter(row: ApprovalRow, opts: { via?: "session" | "api_key"; requestOrigin?: string | null; keepAlive?: KeepAlive }): Promise<RunRow | null> {
  const siblings = await findApprovalsOfRun({ runId: row.runId });
  if (siblings.some((s) => currentStatus(s) === "pending")) return null;
  if (siblings.every((s) => s.resolvedRunId !== null)) return findRunByClientId({ userId: row.userId, runId: continuationRunId(row.runId) });
  try {
    const { run } = await startRun({ userId: row.userId, input: await continuationInput(row, siblings), protocol: "ag-ui", requestOrigin: opts.requestOrigin, via: opts.via, keepAlive: opts.keepAlive });
    return run;
  } catch (err) {
    if (err instanceof AppError && err.code === "CONFLICT" && err.details?.activeRunId) return null;
    throw err;
  }
}

function answer(row: ApprovalRow, run: RunRow | null): DecisionAnswer {
  return { approval: { ...approvalView(row), uiSchema: approvalCard(row) }, run };
}

/** A person decides an approval request; the work it holds continues. */
export async function decideAndContinue(opts: {
  decider: Decider;
  approvalId: string;
  decision: Decision;
  via?: "session" | "api_key";
  requestOrigin?: string | null;
  keepAlive?: KeepAlive;
}): Promise<DecisionAnswer> {
  const { row } = await decideApproval({ approvalId: opts.approvalId, decider: opts.decider, decision: opts.decision });
  return answer(row, await continueAfter(row, opts));
}

/** An approval request as its owner (or an admin) sees it. */
export async function getApproval({ decider, approvalId }: { decider: Decider; approvalId: string }): Promise<DecisionAnswer["approval"]> {
  const row = await findApproval({ id: approvalId });
  if (!row || (row.userId !== decider.userId && !decider.isAdmin)) throw new AppError("NOT_FOUND", `Approval request ${approvalId} not found`);
  return answer(row, null).approval;
}

// The payload of a resume entry answering a tool approval (APPROVAL_RESPONSE_SCHEMA).
const resumePayloadSchema = z.strictObject({
  approved: z.boolean(),
  reason: z.string().max(MAX_REASON_CHARS).optional(),
  editedArgs: z.strictObject({ module: z.string().optional(), method: z.string().optional(), input: z.record(z.string(), z.unknown()) }).optional(),
});

/**
 * A resume entry answering an AG-UI agent's interrupt: its payload is for the agent (its
 * responseSchema), passed on as given; `{approved: false}` is a denial, anything else an answer.
 */
function agentResumeDecision(payload: unknown): Decision {
  const { approved, reason } = (payload && typeof payload === "object" ? payload : {}) as { approved?: unknown; reason?: unknown };
  const why = typeof reason === "string" ? reason.slice(0, MAX_REASON_CHARS) : null;
  return approved === false ? { approve: false, reason: why } : { approve: true, reason: why, editedInput: resumePayloadInput(payload) };
}

/**
 * AG-UI resume[] on the AG-UI-native endpoint: each entry decides the approval its interruptId
 * names (resolved with the payload's answer, or cancelled = denied). Entries must name this
 * thread's requests; a cancelled entry for a request that is over already is a no-op.
 */
export async function applyResumeEntries({ userId, threadId, resume }: { userId: string; threadId: string; resume: readonly ResumeEntry[] }): Promise<void> {
  for (const [i, entry] of resume.entries()) {
    const field = `resume[${i}]`;
    const row = await findApproval({ id: entry.interruptId });
    if (!row || row.userId !== userId || row.threadId !== threadId) {
      throw new AppError("NOT_FOUND", `${field}.interruptId: interrupt ${JSON.stringify(entry.interruptId)} is not one of this thread's`, { field: `${field}.interruptId` });
    }
    let decision: Decision = { approve: false, reason: null };
    if (entry.status === "resolved" && row.action === AGENT_INTERRUPT_ACTION) {
      decision = agentResumeDecision(entry.payload);
    } else if (entry.status === "resolved") {
      const payload = resumePayloadSchema.safeParse(entry.payload ?? {});
      if (!payload.success) throw invalidInput(payload.error.issues.map((issue) => ({ ...issue, path: [field, "payload", ...issue.path] })));
      const { approved, reason, editedArgs } = payload.data;
      const [module, method] = row.action.split(".");
      if (editedArgs && ((editedArgs.module ?? module) !== module || (editedArgs.method ?? method) !== method)) {
        throw new AppError("BAD_REQUEST", `${field}.payload.editedArgs: the module and method of an approved call cannot change (${row.action})`, { field: `${field}.payload.editedArgs` });
      }
      decision = { approve: approved, reason: reason ?? null, ...(approved && editedArgs ? { editedInput: editedArgs.input } : {}) };
    }
    try {
      await decideApproval({ approvalId: row.id, decider: { userId, isAdmin: false }, decision, field: `${field}.payload.editedArgs.input` });
    } catch (err) {
      const over = err instanceof AppError && err.code === "CONFLICT" && ["expired", "superseded", "denied"].includes(String(err.details?.status));
      if (!(entry.status === "cancelled" && over)) throw err;
    }
  }
}

/**
 * The Agent API's mcp_approval_response items: each decides the approval its
 * approval_request_id names, in the session the request gives. Field names are the request's.
 */
export async function answerApprovalRequests(opts: {
  userId: string;
  sessionId: string | undefined;
  answers: readonly { approvalRequestId: string; approve: boolean; reason: string | null; index: number }[];
}): Promise<void> {
  if (!opts.sessionId) {
    throw new AppError("BAD_REQUEST", "session_id: required with mcp_approval_response (the session whose run asked for approval)", { field: "session_id" });
  }
  for (const answer of opts.answers) {
    const field = `input[${answer.index}].approval_request_id`;
    const row = await findApproval({ id: answer.approvalRequestId });
    if (!row || row.userId !== opts.userId || row.threadId !== opts.sessionId) {
      throw new AppError("NOT_FOUND", `${field}: approval request ${JSON.stringify(answer.approvalRequestId)} is not one of this session's`, { field });
    }
    await decideApproval({ approvalId: row.id, decider: { userId: opts.userId, isAdmin: false }, decision: { approve: answer.approve, reason: answer.reason } });
  }
}

/** A run that brings nothing but answers to interrupts (the Agent API's approval responses). */
export function resumeOnlyInput(opts: { threadId: string; runId: string; interruptIds: readonly string[]; tools: RunAgentInput["tools"] }): RunAgentInput {
  return {
    threadId: opts.threadId,
    runId: opts.runId,
    messages: [],
    tools: opts.tools,
    context: [],
    resume: opts.interruptIds.map((interruptId) => ({ interruptId, status: "resolved" })),
  };
}

/** The user's approval policy (the chat's settings). */
export async function getApprovalPolicy({ userId }: { userId: string }): Promise<UserApprovalPolicy> {
  const stored = userApprovalPolicySchema.safeParse(await findUserApprovalPolicy({ userId }));
  return stored.success ? stored.data : DEFAULT_APPROVAL_POLICY;
}

/** Changes it for the user's next runs; a run keeps the policy it started with. */
export async function setApprovalPolicy({ userId, policy }: { userId: string; policy: UserApprovalPolicy }): Promise<UserApprovalPolicy> {
  await setUserApprovalPolicy({ userId, policy });
  return policy;
}

/** The admin CLI's `user:approval-policy`: the same change, named by email, with the allowed values said when one is not. */
export async function setApprovalPolicyByEmail({ email, policy }: { email: string; policy: string }): Promise<UserApprovalPolicy> {
  const parsed = userApprovalPolicySchema.safeParse(policy);
  if (!parsed.success) {
    throw new AppError("BAD_REQUEST", `Unknown approval policy ${JSON.stringify(policy)}: use one of ${userApprovalPolicySchema.options.join(", ")}`, { field: "policy" });
  }
  const user = await findUserByEmail({ email: email.trim().toLowerCase() });
  if (!user) throw new AppError("NOT_FOUND", `No user with email ${email}`);
  return setApprovalPolicy({ userId: user.id, policy: parsed.data });
}

/** The admin console's run page: the approvals the run asked for or carried, and who decided what, when. */
export async function listRunApprovals({ runId }: { runId: string }) {
  const rows = await listApprovalsForRun({ runId });
  return rows.map((row) => ({
    ...approvalView(row),
    askedByThisRun: row.runId === runId,
    ownerEmail: row.ownerEmail,
    decidedByEmail: row.decidedByEmail,
    decidedAsAdmin: row.decidedAsAdmin,
    editedInput: row.editedInput ?? null,
    originalInput: row.input,
    policy: row.policy,
    createdAt: row.createdAt.toISOString(),
  }));
}

/** How many waiting requests the inbox lists at most (the badge counts them). */
export const INBOX_LIMIT = 50;

/** A waiting request as the inbox lists it: its question in the reader's language and the thread it waits in. */
export type InboxItem = { id: string; threadId: string; threadTitle: string; question: string; createdAt: string; expiresAt: string };

/** The user's requests waiting for a decision, across their threads, newest first. */
export async function approvalInbox({ userId, locale }: { userId: string; locale?: string }): Promise<InboxItem[]> {
  const rows = await listPendingApprovals({ userId, limit: INBOX_LIMIT });
  return rows.map((row) => inboxItem(row, locale));
}

type PendingRow = Awaited<ReturnType<typeof listPendingApprovals>>[number];

function inboxItem(row: PendingRow, locale: string | undefined): InboxItem {
  return {
    id: row.id,
    threadId: row.threadId,
    threadTitle: row.threadTitle,
    question: approvalQuestion(row, locale),
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
  };
}

/** A waiting request as the console lists it: whose, in which thread and run, asked how, since when. */
export type AdminInboxItem = InboxItem & { runId: string; ownerEmail: string };

/** Every user's requests waiting for a decision, newest first (the console reads; the owner decides). */
export async function adminApprovalInbox({ locale }: { locale?: string }): Promise<AdminInboxItem[]> {
  const rows = await listPendingApprovals({ userId: null, limit: INBOX_LIMIT });
  return rows.map((row) => ({ ...inboxItem(row, locale), runId: row.runId, ownerEmail: row.ownerEmail }));
}
