import "server-only";
import { EventType } from "@ag-ui/core";
import { AISDKError, APICallError, type LanguageModel, type ToolSet } from "ai";
import { randomUUID } from "node:crypto";
import { createApprovalGate, type ApprovalGate, type ApprovalGateRun } from "../approvals/gate";
import { approvalInterrupt } from "../approvals/interrupt";
import { claimApprovalsForRun, findApprovalsClaimedBy, type ClaimedApproval } from "../approvals/repository";
import { carryApprovals, type ResolvedApproval } from "../approvals/resolve";
import { AppError } from "../kernel/errors";
import { requestedLocale } from "../lib/locale";
import { resolveTimeZone } from "../lib/time";
import { logger } from "../logger";
import { MODEL_MAX_RETRIES } from "../models/constants";
import type { ModelInfo } from "../models/catalog";
import { createAgentModel } from "../models/provider";
import type { StepStreamer } from "../models/step-stream";
import { userMessageParts, type RunAgentInput } from "../protocols/ag-ui/run-input";
import { AGENT_RUNNER_ID } from "../runs/runners/builtin-id";
import type { PrefetchedContext, RunHandle, Runner, RunnerInput, RunnerResult } from "../kernel/runs";
import type { RunMcpServer } from "../tools/repository/run-mcp-servers";
import { loadRunFile, type RunFile } from "../files/run-files";
import { DEFAULT_ALLOWED_MODULES } from "../tools/project-cli/allow-list";
import { mcpIndexCard } from "../tools/mcp/skills";
import { visibleSkills } from "../tools/project-cli/skills";
import { findAgentContext, findPreviousRunToolEvents, findRunProgress, findRunUserAttachments, type AttachmentRef, type ThreadMessage, type ToolEventRow } from "./repository";
import { HISTORY_MESSAGE_LIMIT, MAX_AGENT_STEPS, MEMORY_FACT_LIMIT } from "./constants";
import { buildConversation, clientToolResults, openClientToolCalls, type ToolExchange } from "./conversation";
import { AgUiEventTranslator } from "./event-translator";
import { runModelLoop } from "./model-loop";
import { projectCliBinding } from "./project-cli-binding";
import { titleThreadFromModel } from "./model-title";
import { buildSystemPrompt, type MemoryFact } from "./prompt";
import { answeredToolCallIds, deltaOfStateCall, loggedExchanges, unansweredCalls, usedToolCallIds } from "./resume";
import { toolFailureText, type ToolOutcome } from "./tool-outcome";
import { rollBackDeniedPredictions, runPredictions, StatePredictor } from "./predictive-state";
import { runStateOf } from "./run-state";
import { SharedState, stateTool, STATE_TOOL_NAME } from "./state-tool";
import { buildAgentTools, runProjectCliCall, type ProjectCliBinding } from "./tools";

export type AgentContext = {
  history: ThreadMessage[];
  memoryFacts: MemoryFact[];
  toolEvents: ToolEventRow[];
  /** The new user message's images and documents (server/files). */
  userFiles?: RunFile[];
  /** Approvals of the thread this run carries to the model (decided, expired or superseded). */
  approvals?: ClaimedApproval[];
  /** What the run completed before an earlier execution of it stopped (RunnerInput.resume). */
  progress?: ThreadMessage[];
  /** Skills the user or the run's binding hid: their cards and documents are not shown. */
  hiddenSkills?: string[];
  /** The MCP servers the run may use (dispatch_agent_context): no statement of their own. */
  mcpServers?: RunMcpServer[];
};

export type AgentRunnerDeps = {
  model: (opts: { now: () => Date; timeZone: string; modelId?: string }) => { model: LanguageModel; info: ModelInfo; streamer?: StepStreamer; fileTypes?: readonly string[] };
  projectCli: ProjectCliBinding;
  loadContext: (opts: { run: RunHandle; input: RunAgentInput; prefetched?: PrefetchedContext; resumed?: boolean }) => Promise<AgentContext>;
  approvalGate: (run: ApprovalGateRun) => ApprovalGate;
  now: () => Date;
  /** Names a thread after its first answer with a real model (not awaited: the run does not wait for it). */
  titleThread: (opts: { model: LanguageModel; threadId: string; question: string; answer: string }) => Promise<unknown>;
};

// The engine reads these while accepting the run (Runner.prefetch), saving a round trip; with them
// come the skills the run does not show (dispatch_agent_context).
const CONTEXT_PREFETCH = { historyLimit: HISTORY_MESSAGE_LIMIT, memoryLimit: MEMORY_FACT_LIMIT };

async function loadAgentContext({ run, input, prefetched, resumed }: { run: RunHandle; input: RunAgentInput; prefetched?: PrefetchedContext; resumed?: boolean }): Promise<AgentContext> {
  const answersToolCalls = input.messages.some((m) => m.role === "tool");
  const images = userMessageParts(input).images.length > 0;
  const [context, toolEvents, attachments, approvals, progress] = await Promise.all([
    prefetched ?? findAgentContext({ threadId: run.threadId, runId: run.id, userId: run.userId, ...CONTEXT_PREFETCH }),
    answersToolCalls ? findPreviousRunToolEvents({ threadId: run.threadId, runId: run.id }) : Promise.resolve([]),
    images ? findRunUserAttachments({ runId: run.id }) : Promise.resolve([]),
    // A new user message supersedes the requests still waiting; a run without one only carries decided ones.
    // A run taken over carries those it claimed already; one whose accept saw none on its thread has none to claim.
    resumed
      ? findApprovalsClaimedBy({ runId: run.id })
      : prefetched?.unresolvedApprovals === false
        ? Promise.resolve([])
        : claimApprovalsForRun({ threadId: run.threadId, runId: run.id, supersede: userMessageParts(input).fromUser }),
    resumed ? findRunProgress({ threadId: run.threadId, runId: run.id }) : Promise.resolve([]),
  ]);
  return {
    history: context.history,
    memoryFacts: context.memoryFacts,
    toolEvents,
    userFiles: await loadUserFiles(run.id, attachments),
    approvals,
    progress,
    hiddenSkills: context.hiddenSkills,
    mcpServers: context.mcpServers,
  };
}

// The attachments were checked (ours, the caller's, present) when the run was accepted; the
// model gets their bytes (and a document's text) read server-side, never a URL it could fetch or leak.
async function loadUserFiles(runId: string, refs: AttachmentRef[]): Promise<RunFile[]> {
  const files = await Promise.all(
    refs.map((ref) =>
      loadRunFile(ref).catch((err: unknown) => {
        logger.warn({ runId, path: ref.path, reason: err instanceof Error ? err.message : String(err) }, "attachment unavailable for the model");
        return null;
      }),
    ),
  );
  return files.filter((f): f is RunFile => f !== null);
}

// The provider's own error can carry the request body (the whole conversation) and
// response headers: the run log gets the status only, the client a generic failure.
function modelFailure(error: unknown, info: ModelInfo, runId: string): AppError {
  const status = APICallError.isInstance(error) ? error.statusCode : undefined;
  logger.warn({ runId, provider: info.provider, model: info.id, status, error: error instanceof Error ? error.name : typeof error }, "model call failed");
  return new AppError("UPSTREAM_ERROR", `The model call failed${status ? ` (HTTP ${status})` : ""}`);
}

/** The outcome of an approval as its call's answer: the same TOOL_CALL_RESULT and card a call run here gets. */
function emitCarried(emit: RunnerInput["emit"], c: ResolvedApproval): void {
  const { result } = c;
  const metadata = result.output ? { tool_name: c.toolName, tool_agent_output: result.output } : { tool_name: c.toolName, tool_call_args: c.args };
  emit(
    { type: EventType.TOOL_CALL_RESULT, messageId: `tool_${randomUUID()}`, toolCallId: c.toolCallId, content: result.toolResponseText, role: "tool", metadata: { ui_schema: result.uiSchema } },
    {
      messageMetadata: { ...metadata, approval_id: c.row.id, ...(c.row.parentMessageId ? { parent_message_id: c.row.parentMessageId } : {}) },
      answersEarlierCall: true,
    },
  );
}

const exchangeOf = (c: ResolvedApproval): ToolExchange => ({ toolCallId: c.toolCallId, toolName: c.toolName, args: c.args, content: c.result.toolResponseText });

/**
 * Answers the calls an earlier execution of the run streamed but never answered: a project_cli
 * call runs again with its id (its effect happens once), unless the run's policy holds it for
 * approval; a call cut off mid-arguments is answered as not run. Client tools stay open for the
 * client. Returns the exchanges the model goes on from.
 */
async function repeatUnansweredCalls(
  resume: NonNullable<RunnerInput["resume"]>,
  opts: {
    emit: RunnerInput["emit"];
    gate: ApprovalGate;
    runCall: (call: { toolCallId: string; args: unknown }) => Promise<ToolOutcome>;
    serverToolNames: ReadonlySet<string>;
    sharedState: Record<string, unknown> | null;
  },
): Promise<ToolExchange[]> {
  const exchanges: ToolExchange[] = [];
  for (const call of unansweredCalls(resume)) {
    if (!opts.serverToolNames.has(call.toolName)) continue;
    const parent = call.parentMessageId ? { parent_message_id: call.parentMessageId } : {};
    const answer = (content: string, uiSchema: unknown, metadata: Record<string, unknown>) =>
      opts.emit(
        { type: EventType.TOOL_CALL_RESULT, messageId: `tool_${randomUUID()}`, toolCallId: call.toolCallId, content, role: "tool", metadata: { ui_schema: uiSchema } },
        { messageMetadata: { ...metadata, ...parent } },
      );
    if (call.interrupted) {
      answer(toolFailureText("CALL_INTERRUPTED", "The call was cut off before it ran; it was not run"), null, {});
      continue;
    }
    // Its delta, if it streamed before the stop, is in the log and in the state this execution
    // starts from: the call is answered as done, never applied twice; else as not run.
    if (call.toolName === STATE_TOOL_NAME) {
      const delta = deltaOfStateCall(resume, call.toolCallId);
      const text = delta
        ? JSON.stringify({ status: "success", applied: delta.length, state: opts.sharedState })
        : toolFailureText("CALL_INTERRUPTED", "The run stopped before this call applied; the shared state in the system prompt is current: call update_state again for the change");
      answer(text, null, { tool_name: call.toolName, tool_call_args: call.args });
      exchanges.push({ toolCallId: call.toolCallId, toolName: call.toolName, args: call.args, content: text });
      continue;
    }
    if (await opts.gate.check({ toolCallId: call.toolCallId, args: call.args })) continue;
    const result = await opts.runCall({ toolCallId: call.toolCallId, args: call.args });
    answer(result.toolResponseText, result.uiSchema, result.output ? { tool_name: call.toolName, tool_agent_output: result.output } : { tool_name: call.toolName, tool_call_args: call.args });
    exchanges.push({ toolCallId: call.toolCallId, toolName: call.toolName, args: call.args, content: result.toolResponseText });
  }
  return exchanges;
}

/**
 * What a taken-over run did before, for the model: the calls its log answered whose messages the
 * thread does not hold yet (the earlier execution stopped between the two writes), then the calls
 * it repeats now.
 */
async function resumedExchanges(resume: NonNullable<RunnerInput["resume"]>, progress: readonly ThreadMessage[], opts: Parameters<typeof repeatUnansweredCalls>[1]): Promise<ToolExchange[]> {
  const recorded = new Set(progress.flatMap((m) => (m.role === "tool" && typeof m.metadata.tool_call_id === "string" ? [m.metadata.tool_call_id] : [])));
  return [...loggedExchanges(resume, recorded), ...(await repeatUnansweredCalls(resume, opts))];
}

/** The client's generation settings, in the AI SDK's names. */
function modelSettings(generation: RunnerInput["generation"]) {
  return {
    temperature: generation.temperature,
    topP: generation.topP,
    maxOutputTokens: generation.maxTokens,
    frequencyPenalty: generation.frequencyPenalty,
    presencePenalty: generation.presencePenalty,
    stopSequences: generation.stop,
    seed: generation.seed,
  };
}

/**
 * Runs the tool loop to its end. A model's failure ends the run as the model's (not ours), with
 * what the finished steps used, which were paid for whatever ends the run now.
 */
async function loopUntilDone(
  loop: Parameters<typeof runModelLoop>[0],
  ctx: { translator: AgUiEventTranslator; info: ModelInfo; runId: string; signal: AbortSignal; reportUsage: RunnerInput["reportUsage"] },
): Promise<void> {
  const { translator, info, runId, signal, reportUsage } = ctx;
  try {
    await runModelLoop(loop);
  } catch (err) {
    reportUsage?.(translator.totalUsage, info.id);
    // Errors of the SDK (network, provider) are the model's; anything else is ours and propagates as is.
    if (signal.aborted || !AISDKError.isInstance(err)) throw err;
    throw modelFailure(err, info, runId);
  }
  if (translator.error && !signal.aborted) {
    reportUsage?.(translator.totalUsage, info.id);
    throw modelFailure(translator.error, info, runId);
  }
}

/** The run's answer: its usage, and the writes it left waiting for a person as interrupts with their cards. */
function agentResult(translator: AgUiEventTranslator, gate: ApprovalGate, info: ModelInfo, locale: string | undefined): RunnerResult {
  const usage = translator.totalUsage;
  if (gate.requested.length === 0) return { usage, model: info.id, result: { usage, model: info.id } };
  const parents = new Map(
    gate.requested.flatMap((row) => {
      const parent = translator.parentOfWireCall(row.toolCallId);
      return parent ? [[row.toolCallId, parent] as const] : [];
    }),
  );
  return { usage, model: info.id, interrupts: gate.requested.map((row) => approvalInterrupt(row, locale)), closingMessages: gate.pendingCards(parents) };
}

/** The run's tools with update_state when it has shared state (replacing a client tool of that name). */
const withStateTool = (shared: SharedState | null, tools: ToolSet): ToolSet => (shared ? { ...tools, [STATE_TOOL_NAME]: stateTool(shared) } : tools);

/**
 * A run with shared state (sent, or kept by its thread) gets update_state over it, and predicts
 * the state its client's tools will write as their arguments stream (predictive-state.ts).
 */
function openSharedState(input: RunAgentInput, resume: RunnerInput["resume"], emit: RunnerInput["emit"]) {
  const shared = SharedState.open(runStateOf(input, resume), emit);
  return { shared, predictor: StatePredictor.open(runPredictions(input), shared, emit) };
}

const DEFAULT_DEPS: AgentRunnerDeps = {
  model: createAgentModel,
  projectCli: projectCliBinding,
  loadContext: loadAgentContext,
  approvalGate: (run) => createApprovalGate(run),
  now: () => new Date(),
  titleThread: titleThreadFromModel,
};

/** A real model's first answer in a thread: the thread's title is asked for (server/agent/model-title.ts). */
function titleIfFirstAnswer(deps: AgentRunnerDeps, run: { info: ModelInfo; model: LanguageModel; threadId: string; history: readonly ThreadMessage[]; question: string | null; answer: string }): void {
  if (run.info.offline || run.history.length > 0 || !run.question || !run.answer.trim()) return;
  void deps.titleThread({ model: run.model, threadId: run.threadId, question: run.question, answer: run.answer }).catch(() => undefined);
}

/** One run of the built-in agent: what it carries and repeats, then the tool loop, then its answer. */
// Long: the run's steps in their order, each already a named helper; the rest is their wiring.
async function runAgent(deps: AgentRunnerDeps, { run, input, generation, signal, emit, prefetched, resume, reportUsage }: RunnerInput): Promise<RunnerResult> {
  const timeZone = resolveTimeZone(input);
  // The cards this run draws speak the language its client asked for (the web chat's choice).
  const locale = requestedLocale(input);
  const now = deps.now();
  const { projectCli } = deps;
  const context = await deps.loadContext({ run, input, prefetched, resumed: resume !== undefined });
  const mcpServers = context.mcpServers ?? [];
  const skills = visibleSkills({ allowed: DEFAULT_ALLOWED_MODULES, hidden: context.hiddenSkills ?? [] });
  const user = userMessageParts(input);
  const { model, info, streamer, fileTypes = [] } = deps.model({ now: deps.now, timeZone, modelId: generation.model });
  const { shared, predictor } = openSharedState(input, resume, emit);
  const serverToolNames = new Set(shared ? [projectCli.name, STATE_TOOL_NAME] : [projectCli.name]);
  const translator = new AgUiEventTranslator(emit, serverToolNames, { model: info.id, usedToolCallIds: resume ? usedToolCallIds(resume) : [], predictor });
  const gate = deps.approvalGate({ id: run.id, threadId: run.threadId, userId: run.userId, apiKeyHash: run.apiKeyHash, locale, mcpServers });
  const callFor = (toolCallId: string, args: unknown, callRunId?: string) =>
    runProjectCliCall(projectCli, { userId: run.userId, runId: run.id, toolCallId, callRunId, args, signal, timeZone, locale, visibleSkills: skills, mcpServers });
  const runCall = ({ toolCallId, args }: { toolCallId: string; args: unknown }) => callFor(toolCallId, args);
  const answered = resume ? answeredToolCallIds(resume) : new Set<string>();
  // An approved call keeps the run it was made in: it is done once, whichever run carries it how often.
  const carried = await carryApprovals(
    (context.approvals ?? []).filter((a) => !answered.has(a.toolCallId)),
    ({ toolCallId, callRunId, args }) => callFor(toolCallId, args, callRunId),
    locale,
  );
  for (const c of carried) emitCarried(emit, c);
  const clientResults = clientToolResults(input, openClientToolCalls(context.toolEvents, serverToolNames));
  if (!resume) rollBackDeniedPredictions(input, { events: context.toolEvents, answered: new Set(clientResults.map((r) => r.toolCallId)), shared });
  const repeated = resume ? await resumedExchanges(resume, context.progress ?? [], { emit, gate, runCall, serverToolNames, sharedState: shared?.value ?? null }) : [];
  // A run that continues from an interrupt nobody answered yet has nothing to tell the model (a regenerate asks again).
  if (!resume && !user.fromUser && !user.regenerate && clientResults.length === 0 && carried.length === 0) return {};

  await loopUntilDone(
    {
      model,
      streamer,
      instructions: buildSystemPrompt({
        now,
        timeZone,
        memoryFacts: context.memoryFacts,
        context: input.context,
        clientTools: input.tools,
        skills,
        mcpCards: mcpServers.map(mcpIndexCard),
        sharedState: shared?.value,
      }),
      messages: buildConversation({
        history: context.history,
        clientResults: [...clientResults, ...carried.map(exchangeOf)],
        userText: user.fromUser ? user.text : null,
        userFiles: context.userFiles,
        fileTypes,
        progress: context.progress,
        repeated,
      }),
      tools: withStateTool(shared, buildAgentTools({
        projectCli,
        userId: run.userId,
        runId: run.id,
        timeZone,
        locale,
        signal,
        clientTools: input.tools,
        visibleSkills: skills,
        mcpServers,
        approvals: gate,
        wireId: (id) => translator.callOnWire(id)?.wireId ?? id,
      })),
      maxSteps: MAX_AGENT_STEPS,
      maxRetries: MODEL_MAX_RETRIES,
      settings: modelSettings(generation),
      signal,
      onPart: (part) => translator.accept(part),
      // A provider error ends the run; its stream parts are not worth reading further.
      stop: () => translator.error !== null,
    },
    { translator, info, runId: run.id, signal, reportUsage },
  );
  if (!resume) titleIfFirstAnswer(deps, { info, model, threadId: run.threadId, history: context.history, question: user.fromUser ? user.text : null, answer: translator.answerText });
  return agentResult(translator, gate, info, locale);
}

/**
 * The built-in agent: one tool loop (at most MAX_AGENT_STEPS model calls, on the AI SDK's
 * providers) over project_cli and the client's own tools, streamed as AG-UI events while it runs.
 */
export function createAgentRunner(overrides: Partial<AgentRunnerDeps> = {}): Runner {
  const deps: AgentRunnerDeps = { ...DEFAULT_DEPS, ...overrides };
  return { id: AGENT_RUNNER_ID, prefetch: CONTEXT_PREFETCH, run: (input) => runAgent(deps, input) };
}

export const agentRunner: Runner = createAgentRunner();
