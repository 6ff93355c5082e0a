import "server-only";
import { randomUUID } from "node:crypto";
import type { Interrupt, ResumeEntry } from "@ag-ui/core";
import { env } from "../env";
import { pendingCardMessage, type PendingCardMessage } from "./gate";
import { AGENT_INTERRUPT_ACTION, approvalCard, approvalView } from "./preview";
import { claimApprovalsForRun, insertApproval, releaseClaimedApprovals, type ApprovalRow, type ClaimedApproval } from "./repository";

// An AG-UI agent's interrupts (RUN_FINISHED with an interrupt outcome) as durable approvals, like
// the built-in agent's: a row each, a pending card in the thread, an interrupt on every door named
// by the approval's id. The run that carries the decisions claims the rows as every run does and
// answers the agent in its own terms: resume[] entries naming the agent's interrupt ids.

/** What an agent interrupt's approval row keeps as its `input`: the interrupt the agent raised. */
type AgentInterruptInput = {
  reason: string;
  message?: string;
  agent_interrupt_id: string;
  response_schema?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  /** The call the interrupt is about, as the agent streamed it: its answer in a later run goes into the thread with it. */
  tool_call?: AgentToolCall;
};

/** A tool call an agent streamed: its name, its arguments (parsed), the assistant message it was under. */
export type AgentToolCall = { name: string; args: unknown; parentMessageId?: string };

/** The run whose agent interrupted. */
export type InterruptedRun = { id: string; threadId: string; userId: string; locale?: string };

/** The agent's expiry when it gave a valid one sooner than Dispatch's own (APPROVAL_TTL_SECONDS). */
function expiryOf(interrupt: Interrupt, now: Date): Date {
  const ours = new Date(now.getTime() + env.APPROVAL_TTL_SECONDS * 1000);
  const theirs = interrupt.expiresAt ? new Date(interrupt.expiresAt) : null;
  return theirs && !Number.isNaN(theirs.getTime()) && theirs < ours ? theirs : ours;
}

// The approvals table keys a request by (run, tool call): an interrupt about no tool call (or a
// second one about the same call) is keyed by its own id.
function callKeys(interrupts: readonly Interrupt[]): string[] {
  const seen = new Set<string>();
  return interrupts.map((i) => {
    const key = i.toolCallId && !seen.has(i.toolCallId) ? i.toolCallId : `interrupt:${i.id}`;
    seen.add(key);
    return key;
  });
}

/**
 * A call the interrupt names but the agent never streamed (Mastra holds back a call its tool
 * suspended): its name from the interrupt's metadata (`toolName`, at its top level or one level
 * down), else the interrupt's reason, so the agent's answer to it still goes into the thread.
 */
function unstreamedCall(agent: Interrupt): AgentToolCall {
  const meta = (agent.metadata ?? {}) as Record<string, unknown>;
  const nested = Object.values(meta).find((v): v is Record<string, unknown> => typeof v === "object" && v !== null && typeof (v as { toolName?: unknown }).toolName === "string");
  const name = typeof meta.toolName === "string" ? meta.toolName : (nested?.toolName as string | undefined);
  const args = (typeof meta.toolName === "string" ? meta.args : nested?.args) ?? {};
  return { name: name ?? agent.reason, args };
}

/** The interrupt clients see: the agent's, named by the approval's id, with its card and view. */
function clientInterrupt(row: ApprovalRow, agent: Interrupt, locale?: string): Interrupt {
  return {
    id: row.id,
    reason: agent.reason,
    ...(agent.message ? { message: agent.message } : {}),
    ...(agent.toolCallId ? { toolCallId: agent.toolCallId } : {}),
    ...(agent.responseSchema ? { responseSchema: agent.responseSchema } : {}),
    expiresAt: row.expiresAt.toISOString(),
    metadata: { ...(agent.metadata ?? {}), ui_schema: approvalCard(row, { locale }), approval: approvalView(row) },
  };
}

/**
 * Records the agent's interrupts as pending approvals of its run; what the run ends with: the
 * interrupts for RUN_FINISHED's outcome and the pending cards for the thread. `parents` gives
 * the assistant message a tool call was streamed under.
 */
export async function recordAgentInterrupts(
  run: InterruptedRun,
  interrupts: readonly Interrupt[],
  callOf: (toolCallId: string) => AgentToolCall | undefined,
): Promise<{ interrupts: Interrupt[]; closingMessages: PendingCardMessage[] }> {
  const now = new Date();
  const keys = callKeys(interrupts);
  const out: { interrupts: Interrupt[]; closingMessages: PendingCardMessage[] } = { interrupts: [], closingMessages: [] };
  for (const [i, agent] of interrupts.entries()) {
    const call = agent.toolCallId ? (callOf(agent.toolCallId) ?? unstreamedCall(agent)) : undefined;
    const input: AgentInterruptInput = {
      reason: agent.reason,
      ...(agent.message ? { message: agent.message } : {}),
      agent_interrupt_id: agent.id,
      ...(agent.responseSchema ? { response_schema: agent.responseSchema } : {}),
      ...(agent.metadata ? { metadata: agent.metadata } : {}),
      ...(call ? { tool_call: call } : {}),
    };
    // The agent asks a person: no approval policy answers for them, so the row records "agent".
    const row = await insertApproval({
      id: randomUUID(),
      runId: run.id,
      threadId: run.threadId,
      userId: run.userId,
      toolCallId: keys[i]!,
      action: AGENT_INTERRUPT_ACTION,
      input,
      policy: "agent",
      expiresAt: expiryOf(agent, now),
    });
    out.interrupts.push(clientInterrupt(row, agent, run.locale));
    out.closingMessages.push(pendingCardMessage(row, call?.parentMessageId, run.locale));
  }
  return out;
}

/** The payload a client's resume entry gave for an agent interrupt, kept as the row's edited input. */
export const resumePayloadInput = (payload: unknown) => ({ payload: payload ?? null });

function resumeEntryFor(row: ClaimedApproval): ResumeEntry {
  const interruptId = (row.input as AgentInterruptInput).agent_interrupt_id;
  const given = row.editedInput as { payload?: unknown } | null;
  switch (row.status) {
    case "approved":
      return { interruptId, status: "resolved", payload: given && "payload" in given ? given.payload : { approved: true, ...(row.reason ? { reason: row.reason } : {}) } };
    case "denied":
      return { interruptId, status: "resolved", payload: { approved: false, ...(row.reason ? { reason: row.reason } : {}) } };
    default:
      // Expired, or superseded by a new user message: nobody answered it.
      return { interruptId, status: "cancelled" };
  }
}

/**
 * Claims the thread's decided (and expired, and, with a new user message, superseded) requests
 * for this run, once; the agent's own among them as the resume[] its next request carries.
 * Requests of another runner (the built-in agent's, before the thread was bound here) are closed
 * with the claim: this agent cannot carry them out.
 */
export async function claimAgentResume(
  run: { id: string; threadId: string },
  supersede: boolean,
): Promise<{ resume: ResumeEntry[]; calls: Map<string, AgentToolCall> }> {
  const rows = (await claimApprovalsForRun({ threadId: run.threadId, runId: run.id, supersede })).filter((row) => row.action === AGENT_INTERRUPT_ACTION);
  // The calls the agent may now answer, though an earlier run streamed them.
  const calls = new Map(rows.flatMap((row) => ((row.input as AgentInterruptInput).tool_call ? [[row.toolCallId, (row.input as AgentInterruptInput).tool_call!] as const] : [])));
  return { resume: rows.map(resumeEntryFor), calls };
}

/**
 * The run never reached its agent (unreachable, an HTTP error): the answers it claimed were not
 * delivered, so the thread's next run carries them instead of losing them.
 */
export async function releaseAgentResume(run: { id: string }): Promise<void> {
  await releaseClaimedApprovals({ runId: run.id });
}
