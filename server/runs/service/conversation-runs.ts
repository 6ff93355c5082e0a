import "server-only";
import { EventType, type Message as AgUiMessage } from "@ag-ui/core";
import type { ClaimedApiKey } from "../../auth/session";
import { env } from "../../env";
import { AppError } from "../../kernel/errors";
import { logger } from "../../logger";
import type { RunAgentInput, ToolMessage, UserMessage } from "../../protocols/ag-ui/run-input";
import { findBranchUserAfter, findThreadConversationState, type ThreadConversationState } from "../repository/conversation";
import { threadSnapshot } from "./thread-snapshot";
import { findRunByClientId, findRunById, type RunFork, type RunRow } from "../repository/runs";
import { sameThread } from "../accept";
import { cancelRun } from "../cancel";
import { followRunStream, forgetAbandoned } from "../followers";
import { requesterLeft, takeDeparture } from "../departures";
import { followRunBatches } from "../subscribe";
import { TERMINAL_EVENT_TYPES, TERMINAL_STATUSES, type EventRecord } from "../../kernel/runs";
import { applyResumeEntries } from "../../approvals/service";
import { openCallAnswers } from "./client-tool-answers";
import { knownById, reconcileConversation, type ReconciledConversation } from "./conversation-reconcile";
import { startRun, type KeepAlive } from "./runs";
import { threadNamed } from "../../threads/service/thread-names";
import { keptState, nonEmptyState } from "../../thread-state/service";
import { sendsState } from "../../protocols/ag-ui/state-rules";

// POST /api/v1/ag-ui: runs for AG-UI clients that hold the conversation themselves (CopilotKit,
// @ag-ui/client on default settings). Their `messages` is reconciled with the thread
// (conversation-reconcile.ts); what is new becomes an ordinary run of the same engine, event
// log and history as POST /api/v1/agent/runs.

// How long a new message waits for the abandoned run it supersedes to end.
const SUPERSEDE_WAIT_MS = 10_000;

export type ConversationStart =
  /** A run of this request (or the earlier one with the same runId). */
  | { kind: "run"; run: RunRow; created: boolean; position?: number }
  /** Nothing new while the thread has a run in progress: the client joins it. */
  | { kind: "attach"; run: RunRow; snapshot: AgUiMessage[] }
  /** Nothing new and nothing running: the client gets the thread as it is, with the state it keeps. */
  | { kind: "snapshot"; snapshot: AgUiMessage[]; state: Record<string, unknown> | null };

/**
 * Reconciles the client's conversation with the thread and starts what it brings: a run for a new
 * user message and/or answers to the thread's open frontend tool calls; otherwise the thread's
 * run in progress to join, or the thread as it is.
 */
export async function startConversationRun(opts: {
  userId: string;
  input: RunAgentInput;
  via: "session" | "api_key";
  apiKeyId?: string;
  claimedKey?: ClaimedApiKey;
  apiKeyHash?: string;
  requestOrigin: string | null;
  keepAlive?: KeepAlive;
}): Promise<ConversationStart> {
  const { userId } = opts;
  // AG-UI ids are any string: a thread named otherwise than by a UUID is the user's own (thread-names.ts),
  // and its runs' events carry the client's name.
  const thread = threadNamed(userId, opts.input.threadId);
  const input: RunAgentInput = thread.named ? { ...opts.input, threadId: thread.threadId, threadName: thread.name } : opts.input;
  // Only user and tool messages are looked up: assistant messages are skipped whether the thread
  // has them or not (conversation-reconcile.ts), and they were half of a resent thread's lookups.
  const ids = input.messages.filter((m) => m.role === "user" || m.role === "tool").map((m) => m.id);
  // A client that sends its state replaces the kept one (docs/ag-ui.md, "Shared state"): up to 64 KB not read for nothing.
  const sentState = sendsState(input.state);
  const state = await findThreadConversationState({ threadId: input.threadId, messageIds: ids, withState: !sentState });
  if (state.ownerId !== null && state.ownerId !== userId) throw new AppError("NOT_FOUND", `Thread ${thread.name} not found`);
  const reconciled = reconcileConversation(input.messages, knownById(state.known));
  const { instructions } = reconciled;
  const resume = input.resume ?? [];
  const branching = await branchingOf(reconciled, state, input.threadId);
  const tail = branching?.messages ?? reconciled.tail;

  if (resume.length > 0) {
    // AG-UI's answers to the interrupts (approvals) that ended the previous run: decided before
    // the run that carries them starts. A repeated runId is the same task, decided already.
    await opts.claimedKey?.verify();
    const previous = await findRunByClientId({ userId, runId: input.runId });
    if (previous) return { kind: "run", run: sameThread(previous, input), created: false };
    await applyResumeEntries({ userId, threadId: input.threadId, resume });
  } else if (tail.length === 0) {
    // Nothing new but, maybe, a regenerate. Reading the thread needs a checked key (a run's accepting statement checks it itself).
    await opts.claimedKey?.verify();
    const previous = await findRunByClientId({ userId, runId: input.runId });
    if (previous) return { kind: "run", run: sameThread(previous, input), created: false };
    if (state.ownerId === null) throw new AppError("BAD_REQUEST", "messages has no user message: a new thread starts with one", { field: "messages" });
    if (state.activeRun) return { kind: "attach", run: state.activeRun, snapshot: await threadSnapshot(input.threadId, state.activeRun.id) };
    if (!branching) {
      const kept = sentState ? await keptState({ userId, threadId: input.threadId }) : state.keptState;
      return { kind: "snapshot", snapshot: await threadSnapshot(input.threadId, null), state: nonEmptyState(kept) };
    }
  }

  const answers = tail.filter((m): m is ToolMessage => m.role === "tool");
  const toolMessages = answers.length > 0 ? await openCallAnswers(input, answers, { strict: true }) : undefined;
  const runInput: RunAgentInput = {
    ...input,
    messages: tail,
    // The frontend's system and developer messages reach the model (and external runners) as context.
    context: [...input.context, ...instructions.map((m) => ({ description: `Instructions from the client application (${m.role} message)`, value: m.content }))],
  };
  const start = () =>
    startRun({
      userId,
      input: runInput,
      protocol: "ag-ui",
      requestOrigin: opts.requestOrigin,
      via: opts.via,
      apiKeyId: opts.apiKeyId,
      claimedKey: opts.claimedKey,
      apiKeyHash: opts.apiKeyHash,
      toolMessages,
      fork: branching?.fork,
      keepAlive: opts.keepAlive,
      // Read with the thread above (its owner checked there): no statement of its own.
      keptState: nonEmptyState(state.keptState),
    });
  try {
    return { kind: "run", ...(await start()) };
  } catch (err) {
    const busy = err instanceof AppError && err.code === "CONFLICT" ? (err.details?.activeRunId as string | undefined) : undefined;
    if (!busy || !(await supersedeAbandonedRun(userId, busy))) throw err;
    return { kind: "run", ...(await start()) };
  }
}

/**
 * How the client's conversation branches the thread (docs/branches.md), if it does: an edited
 * user message forks at it (the edit is the run's user message); a conversation that ends with a
 * user message the branch has answered regenerates that answer (the run brings no message); a new
 * user message after a part of the branch the client holds (it lacks the branch's later user
 * messages) forks at the first of those.
 */
async function branchingOf(reconciled: ReconciledConversation, state: ThreadConversationState, threadId: string): Promise<{ fork: RunFork; messages: (UserMessage | ToolMessage)[] } | null> {
  const { edited, endsWithUser, tail, matchedSeq } = reconciled;
  if (edited) return { fork: { messageId: edited.id, keep: false }, messages: [edited] };
  if (endsWithUser?.onBranch && endsWithUser.role === "user" && state.tipSeq > endsWithUser.seq) {
    return { fork: { messageId: endsWithUser.messageId, keep: true }, messages: [] };
  }
  const onlyUser = tail.length === 1 && tail[0]!.role === "user";
  if (onlyUser && matchedSeq > 0 && state.lastUserSeq > matchedSeq) {
    const at = await findBranchUserAfter({ threadId, seq: matchedSeq });
    if (at) return { fork: { messageId: at, keep: false }, messages: tail };
  }
  return null;
}

/**
 * The thread is busy with a run whose requester left (AG-UI's Stop) and whose grace is running, on
 * whichever instance: the user's next message supersedes it. Cancels it now and waits for its end;
 * false when a client follows it again (a 409 stands).
 */
async function supersedeAbandonedRun(userId: string, busyRunId: string): Promise<boolean> {
  const run = await findRunByClientId({ userId, runId: busyRunId });
  if (!run || (await takeDeparture(run.id)) === "none") return false;
  forgetAbandoned(run.id);
  await cancelRun(run, "requester_gone");
  const signal = AbortSignal.timeout(SUPERSEDE_WAIT_MS);
  try {
    for await (const batch of followRunBatches({ runId: run.id, after: 0, signal })) {
      if (batch.some((rec) => TERMINAL_EVENT_TYPES.has(rec.type))) break;
    }
  } catch (err) {
    logger.warn({ err, runId: run.id }, "waiting for a superseded run failed");
  }
  const ended = await findRunById({ id: run.id });
  return ended !== null && TERMINAL_STATUSES.has(ended.status);
}

/** The grace of a run whose requester left has ended here: cancels it unless a client re-attached (anywhere) or a message superseded it. */
async function stopAbandonedRun(runId: string): Promise<void> {
  if ((await takeDeparture(runId)) === "none") return;
  const current = await findRunById({ id: runId });
  if (current) await cancelRun(current, "requester_gone");
}

/**
 * The events a client of this endpoint receives for a run, from `after`, counted as a follower.
 * The run's requester (`requester`, or a client re-attaching to a run whose requester left, through
 * any instance) arms AG-UI's Stop: when it leaves before the run's end and nobody follows within
 * AG_UI_STOP_GRACE_MS, the run is cancelled (departures.ts).
 */
export async function* followConversationRun(opts: { run: RunRow; after: number; signal: AbortSignal; requester: boolean }): AsyncGenerator<EventRecord[]> {
  const { run } = opts;
  const requester = opts.requester || (!TERMINAL_STATUSES.has(run.status) && (await takeDeparture(run.id)) !== "none");
  const release = followRunStream(
    run.id,
    requester
      ? {
          graceMs: env.AG_UI_STOP_GRACE_MS,
          onLeft: () => requesterLeft(run.id),
          onAbandoned: () => void stopAbandonedRun(run.id).catch((err: unknown) => logger.warn({ err, runId: run.id }, "could not stop a run its requester left")),
        }
      : {},
  );
  // Whether the client left before the run's end: not when it got the terminal event, nor when the
  // follow ended by itself without one (the server closed the stream for the client to rejoin: this
  // instance lost its database, or a Vercel invocation ends).
  let clientLeft = true;
  try {
    for await (const batch of followRunBatches({ runId: run.id, after: opts.after, signal: opts.signal, ended: TERMINAL_STATUSES.has(run.status) })) {
      if (batch.length > 0 && TERMINAL_EVENT_TYPES.has(batch[batch.length - 1]!.type)) clientLeft = false;
      yield batch;
    }
    if (!opts.signal.aborted) clientLeft = false;
  } finally {
    release(!clientLeft);
  }
}

/** A MESSAGES_SNAPSHOT event as a record without a sequence number (it is not in the run's log). */
export function snapshotRecord(messages: AgUiMessage[]): EventRecord {
  return { seq: 0, type: EventType.MESSAGES_SNAPSHOT, json: JSON.stringify({ type: EventType.MESSAGES_SNAPSHOT, messages }) };
}
