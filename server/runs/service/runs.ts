import "server-only";
import type { ClaimedApiKey } from "../../auth/session";
import { AppError } from "../../kernel/errors";
import { logger } from "../../logger";
import { findRunByClientId, type RunFork, type RunRow, type RunToolMessage } from "../repository/runs";
import { userMessageParts, type RunAgentInput, type ToolMessage } from "../../protocols/ag-ui/run-input";
import { resolveRunAttachments } from "../../attachments/service";
import { openCallAnswers } from "./client-tool-answers";
import { acceptRun, sameThread, StalePlanError } from "../accept";
import { runHandle } from "../handle";
import { cancelRun } from "../cancel";
import { executeRun } from "../execute";
import { defaultRunner } from "../runners/registry";
import { shareRunAttachments } from "../../runner-host/artifact-store";
import { createHttpRunner } from "../../runner-host/http-runner";
import { createAgUiRunner } from "../../runner-host/ag-ui/agent-runner";
import { agentHistory } from "./thread-snapshot";
import { dropBindingSnapshot } from "../../runner-host/binding-snapshot";
import { planRun, type RunPlan } from "../../runner-host/plan";
import { startRecoverySweeper } from "../recovery";
import type { GenerationParams, Runner } from "../../kernel/runs";
import { findModel, listModels } from "../../models/catalog";
import { queuePositions } from "../repository/run-queue";
import { forwardedBranch } from "../../protocols/ag-ui/branch-props";
import { forwardedMultitaskStrategy, type MultitaskStrategy } from "../../protocols/ag-ui/multitask";
import { traceIdOf } from "../../telemetry/tracing";
import { withKeptState } from "../../thread-state/service";

/** Keeps background work a request started alive after its answer (the edge's, e.g. Next's `after`). */
export type KeepAlive = (work: Promise<unknown>) => void;

/**
 * The generation parameters with the model the request picked: the Agent API's `model`, else
 * AG-UI's `forwardedProps.model` (the chat's model picker sends it there too). An unknown model
 * is refused before anything is written, naming what is available.
 */
function chosenModel(input: RunAgentInput, generation: GenerationParams = {}): GenerationParams {
  const props = input.forwardedProps;
  const forwarded = props && typeof props === "object" && "model" in props ? (props as { model: unknown }).model : undefined;
  const field = generation.model !== undefined ? "model" : "forwardedProps.model";
  const model = generation.model ?? forwarded;
  if (model === undefined || model === null) return generation;
  if (typeof model !== "string" || !findModel(model)) {
    const available = listModels().map((m) => m.id).join(", ");
    throw new AppError("BAD_REQUEST", `${field}: unknown model ${JSON.stringify(model)}; available: ${available}`, { field, available: listModels().map((m) => m.id) });
  }
  return { ...generation, model };
}

/**
 * Plans the run (its runner, binding and grants) and accepts it in one statement. The bindings may
 * have changed since this process read them: then they are read again and the plan made afresh.
 */
async function acceptPlanned(
  opts: StartRunOptions,
  accepting: { generation: GenerationParams; apiKeyHash: string | undefined; userMessageMetadata: Record<string, unknown> | undefined; multitaskStrategy: MultitaskStrategy | undefined },
) {
  const accept = async (fresh: boolean) => {
    const plan = await planRun({ userId: opts.userId, input: opts.input, protocol: opts.protocol, fresh });
    // In-process runs go to the registered default runner (the built-in agent, or a test's stand-in).
    const local = plan.endpoint ? null : defaultRunner();
    const accepted = await acceptRun({
      userId: opts.userId,
      input: opts.input,
      protocol: opts.protocol,
      runner: local?.id ?? plan.runnerId,
      userMessageMetadata: accepting.userMessageMetadata,
      entry: plan.entry,
      bindingId: plan.binding?.id ?? null,
      authorization: plan.authorization,
      deadlineSeconds: plan.binding?.policy.deadline_seconds,
      start: true,
      prefetch: local?.prefetch,
      bindingCheck: plan.bindingCheck ?? undefined,
      apiKeyHash: accepting.apiKeyHash,
      apiKeyId: opts.apiKeyId,
      toolMessages: opts.toolMessages,
      fork: opts.fork,
      generation: accepting.generation,
      multitaskStrategy: accepting.multitaskStrategy ?? plan.binding?.multitaskStrategy ?? "reject",
    });
    return { plan, local, accepted };
  };
  try {
    return await accept(false);
  } catch (err) {
    if (!(err instanceof StalePlanError)) throw err;
    dropBindingSnapshot();
    return accept(true);
  }
}

export type StartRunOptions = {
  userId: string;
  input: RunAgentInput;
  protocol: string;
  generation?: GenerationParams;
  requestOrigin?: string | null;
  /** How the caller signed in: a browser session is the web UI, an API key a client. */
  via?: "session" | "api_key";
  /** The API key `userId` was taken from without a database read (see withCaller), not checked yet. */
  claimedKey?: ClaimedApiKey;
  /** The caller's API key (its hash), when it signed in with one: the run's approval policy may come from it. */
  apiKeyHash?: string;
  /** The client's answers to the thread's open frontend tool calls, as each door reads them from its request. */
  toolMessages?: RunToolMessage[];
  /** Fork the thread before the run's messages are written: a regenerated answer, an edited message (docs/branches.md). */
  fork?: RunFork;
  /** The API key the caller came with: recorded on the run, and its budgets apply. */
  apiKeyId?: string;
  /** Given the run's execution; without it (scripts, tests) the promise simply runs on. */
  keepAlive?: KeepAlive;
  /**
   * What to do when the thread has a run in progress (the Agent API's field); else AG-UI's
   * forwardedProps.multitaskStrategy; else the binding's default; else reject.
   */
  multitaskStrategy?: MultitaskStrategy;
  /** The thread's kept shared state when the caller read it already (null: none); else it is read here. */
  keptState?: Record<string, unknown> | null;
};

/**
 * Accepts a run for the user and starts executing it on this instance. Every protocol
 * comes through here, so image URLs get the same checks (ours, signed, unexpired, the
 * caller's) before anything is written. The execution is handed to `keepAlive`, so it
 * outlives the response on serverless hosts too.
 */
export async function startRun(opts: StartRunOptions): Promise<{ run: RunRow; created: boolean; position?: number }> {
  startRecoverySweeper();
  const generation = chosenModel(opts.input, opts.generation);
  const forwarded = forwardedMultitaskStrategy(opts.input.forwardedProps);
  if (!forwarded.ok) throw new AppError("BAD_REQUEST", forwarded.message, { field: "forwardedProps.multitaskStrategy" });
  const requestedStrategy = opts.multitaskStrategy ?? forwarded.strategy;
  // A fork changes the branch the thread is on now: it cannot wait for a turn that comes later.
  if (opts.fork && requestedStrategy === "enqueue") throw new AppError("CONFLICT", "A regenerated answer or an edited message cannot wait its turn: the thread has a run in progress");
  const images = userMessageParts(opts.input).images;
  // The accepting statement checks a claimed key; images are checked against the caller
  // before it, so the key is checked first then.
  let apiKeyHash = opts.claimedKey?.hash;
  if (images.length > 0 && opts.claimedKey) {
    await opts.claimedKey.verify();
    apiKeyHash = undefined;
  }
  // A repeated runId is the same task: answer it without re-checking URLs that may have expired
  // since. Without images acceptRun answers it itself, in the round trip that accepts new runs.
  if (images.length > 0) {
    const existing = await findRunByClientId({ userId: opts.userId, runId: opts.input.runId });
    if (existing) return { run: sameThread(existing, opts.input), created: false };
  }
  const [{ attachments, userMessageMetadata }, input] = await Promise.all([
    resolveRunAttachments({ userId: opts.userId, images, requestOrigin: opts.requestOrigin }),
    // A request without state continues from the thread's (server/thread-state/service.ts). Read
    // by owner before a claimed key is checked, it goes nowhere unless the accept, which checks it, succeeds.
    withKeptState(opts.input, opts.userId, opts.keptState),
  ]);
  opts = { ...opts, input };
  const { plan, local, accepted } = await acceptPlanned(opts, { generation, apiKeyHash, userMessageMetadata, multitaskStrategy: requestedStrategy });
  // A run queued behind the thread's run in progress starts later, wherever a worker takes its job (server/queue).
  if (accepted.created && accepted.position === undefined) {
    const r = accepted.run;
    const runner = runnerFor(plan, local, { run: r, via: opts.via ?? "api_key", attachments, wireThreadId: opts.input.threadName, requestOrigin: opts.requestOrigin });
    const execution = executeRun(
      runHandle(r, { status: r.status, apiKeyHash: opts.apiKeyHash ?? opts.claimedKey?.hash ?? null, traceParent: r.traceParent, traceState: r.traceState }),
      opts.input,
      runner,
      generation,
      accepted.prefetched,
      accepted.opened ? { opened: accepted.opened } : undefined,
    ).catch((err: unknown) => logger.error({ err, runId: r.id }, "run execution crashed"));
    opts.keepAlive?.(execution);
  }
  return accepted;
}

/**
 * POST /api/v1/agent/runs: the run of its one user message, and of the answers to the thread's
 * open frontend tool calls its messages may bring, which the thread keeps as the other doors do.
 */
export async function startSeedRun(opts: Parameters<typeof startRun>[0]): ReturnType<typeof startRun> {
  opts = withBranchRequest(opts);
  const answers = opts.input.messages.filter((m): m is ToolMessage => m.role === "tool");
  if (answers.length === 0) return startRun(opts);
  // Reading the thread needs a checked key (the accepting statement checks one itself).
  await opts.claimedKey?.verify();
  const toolMessages = await openCallAnswers(opts.input, answers, { strict: false });
  return startRun({ ...opts, toolMessages: toolMessages.length > 0 ? toolMessages : undefined });
}

/** The seed door's `forwardedProps.branch` (server/protocols/ag-ui/branch-props.ts) as the run's fork. */
function withBranchRequest(opts: StartRunOptions): StartRunOptions {
  const asked = forwardedBranch(opts.input.forwardedProps);
  if (!asked.ok) throw new AppError("BAD_REQUEST", asked.message, { field: "forwardedProps.branch" });
  const branch = asked.branch;
  if (!branch) return opts;
  if ("replace" in branch) return { ...opts, fork: { messageId: branch.replace, keep: false } };
  // A regenerate answers the thread's message: the request's own user message is not added.
  const input = { ...opts.input, messages: opts.input.messages.filter((m) => m.role !== "user") };
  return { ...opts, input, fork: { messageId: branch.regenerate, keep: true } };
}

/** The runner that executes a run of this plan: the external one it names, else the in-process one. */
export function runnerFor(
  plan: RunPlan,
  local: Runner | null,
  opts: { run: Pick<RunRow, "id" | "userId" | "threadId">; via: "session" | "api_key"; attachments: { bucket: string; path: string }[]; wireThreadId?: string; requestOrigin?: string | null },
): Runner {
  const r = opts.run;
  if (plan.endpoint?.kind === "ag-ui") {
    return createAgUiRunner({
      endpoint: plan.endpoint,
      manifest: plan.manifest,
      threadId: opts.wireThreadId ?? r.threadId,
      history: () => agentHistory(r.threadId, opts.requestOrigin),
    });
  }
  return plan.endpoint
    ? createHttpRunner({
        endpoint: plan.endpoint,
        manifest: plan.manifest,
        binding: plan.binding,
        authorization: plan.authorization,
        entry: plan.entry,
        via: opts.via,
        knowledgeBaseNames: plan.knowledgeBaseNames,
        attachments: () => shareRunAttachments({ userId: r.userId, threadId: r.threadId, runId: r.id, refs: opts.attachments }),
      })
    : (local ?? defaultRunner());
}

export async function getRunForUser({ userId, runId }: { userId: string; runId: string }): Promise<RunRow> {
  const run = await findRunByClientId({ userId, runId });
  if (!run) throw new AppError("NOT_FOUND", `Run ${runId} not found`);
  return run;
}

export async function cancelRunForUser({ userId, runId }: { userId: string; runId: string }): Promise<RunRow> {
  const run = await getRunForUser({ userId, runId });
  await cancelRun(run);
  return (await findRunByClientId({ userId, runId })) ?? run;
}

/** TaskAcceptedResponse; a run queued behind the thread's run in progress also says so, with its place in line (1: next). */
export function taskAccepted(run: RunRow, position?: number) {
  return {
    taskId: run.id,
    threadId: run.threadId,
    runId: run.runId,
    created: run.createdAt.toISOString(),
    traceId: runTraceId(run),
    ...(position === undefined ? {} : { status: "queued" as const, queuePosition: position }),
  };
}

/** The run's status (GET /api/v1/agent/runs/{runId}); a run waiting its turn adds its place in line. */
export async function runStatusForUser({ userId, runId }: { userId: string; runId: string }) {
  const run = await getRunForUser({ userId, runId });
  const position = run.status === "queued" ? (await queuePositions({ ids: [run.id] })).get(run.id) : undefined;
  return { ...runView(run), ...(position === undefined ? {} : { queuePosition: position }) };
}

/** The W3C trace id the run's runner and model calls carry (docs/operations.md#traces); null for a run older than traces. */
const runTraceId = (run: RunRow): string | null => (run.traceParent ? traceIdOf(run.traceParent) : null);

export function runView(run: RunRow) {
  const end = run.finishedAt ?? null;
  return {
    taskId: run.id,
    runId: run.runId,
    threadId: run.threadId,
    status: run.status,
    protocol: run.protocol,
    runner: run.runner,
    model: run.model,
    createdAt: run.createdAt.toISOString(),
    startedAt: run.startedAt?.toISOString() ?? null,
    finishedAt: end?.toISOString() ?? null,
    durationMs: run.startedAt && end ? end.getTime() - run.startedAt.getTime() : null,
    deadlineAt: run.deadlineAt.toISOString(),
    error: run.errorCode ? { code: run.errorCode, message: run.errorMessage ?? "" } : null,
    usage: run.usage,
    traceId: runTraceId(run),
  };
}
