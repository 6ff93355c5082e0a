import "server-only";
import { createHash } from "node:crypto";
import { z } from "zod";
import { findModel, currentModelInfo } from "../models/catalog";
import type { GenerationParams } from "../kernel/runs";
import { activeTraceId, traceIdOf } from "../telemetry/tracing";
import { requestedLocale } from "../lib/locale";
import { resolveTimeZone } from "../lib/time";
import { userMessageParts, type RunAgentInput } from "../protocols/ag-ui/run-input";
import { SCHEDULER_SOURCE, type AgentRunContext } from "../protocols/runner/context";
import type { AgentRunnerManifest } from "../protocols/runner/manifest";
import type { ArtifactRow } from "./repository/artifacts";
import { findTranscriptPosition, listMessagesBefore } from "../threads/repository/transcript";
import { PROJECT_CLI_TOOL_NAME, projectCliArgsSchema, projectCliToolDescription } from "../tools/project-cli/tool";
import { artifactRef } from "./artifact-store";
import type { EntryEvent } from "./entry-events";
import type { RunAuthorization } from "./policy";
import type { BindingRow } from "./repository/runners";
import { loadStateSnapshot, stateScopeIds } from "./state-store";
import { summarizeEarlier, type ConversationSummary } from "./summary";
import { encodeTranscriptCursor } from "./transcript-cursor";

// AgentRunContext, event-first (spec §4): the current event and its input, handles to pull
// more (cursors, available APIs), the resources this run may use, and a state snapshot.
// History is not inlined unless the runner's context policy asks for a bootstrap tail.

const DEFAULT_LOCALE = "en-US";
const projectCliParametersJson = z.toJSONSchema(projectCliArgsSchema);

export type RunContextSource = {
  run: { id: string; threadId: string; userId: string; deadlineAt: Date; protocol: string; traceParent?: string | null };
  input: RunAgentInput;
  via: "session" | "api_key";
  entry: EntryEvent;
  manifest: AgentRunnerManifest;
  binding: BindingRow | null;
  authorization: RunAuthorization;
  attachments: ArtifactRow[];
  knowledgeBaseNames: Map<string, string>;
  /** The request's model choice and sampling parameters. */
  generation: GenerationParams;
};

/**
 * What the client asked for besides its input, for the runner to honour (docs/agent-api.md,
 * "External runners"): the chosen model, the sampling parameters in the Agent API's names, and
 * AG-UI's tools, context, forwardedProps and state, as the request carried them.
 */
function clientRequest(input: RunAgentInput, generation: GenerationParams, model: string, protocol: string) {
  const sampling = {
    temperature: generation.temperature,
    top_p: generation.topP,
    max_tokens: generation.maxTokens,
    frequency_penalty: generation.frequencyPenalty,
    presence_penalty: generation.presencePenalty,
    stop: generation.stop,
    seed: generation.seed,
  };
  return {
    protocol,
    model,
    generation: Object.fromEntries(Object.entries(sampling).filter(([, value]) => value !== undefined)),
    tools: input.tools,
    context: input.context,
    forwarded_props: input.forwardedProps ?? null,
    state: input.state ?? null,
  };
}

async function bootstrapTail(opts: { threadId: string; beforeSeq: number; maxEvents: number; maxBytes: number }) {
  const rows = await listMessagesBefore({ threadId: opts.threadId, beforeSeq: opts.beforeSeq, limit: opts.maxEvents });
  const picked: typeof rows = [];
  let bytes = 0;
  for (const r of rows) {
    bytes += Buffer.byteLength(r.content, "utf8");
    if (opts.maxBytes > 0 && bytes > opts.maxBytes) break;
    picked.push(r);
  }
  return picked.reverse();
}

/** The locale the client asked for (AG-UI's forwardedProps.locale, a BCP 47 tag), else the host's. */
function requestLocale(input: RunAgentInput): string {
  return requestedLocale(input) ?? DEFAULT_LOCALE;
}

const hashOf = (value: unknown) => `sha256:${createHash("sha256").update(JSON.stringify(value)).digest("hex")}`;

/**
 * Stable hashes of what stays the same from run to run, so a runner can keep its prompt prefix
 * (and a model server its KV cache) while they hold: the policy the host applies to this runner
 * (manifest permissions and the binding's grant, without the run's ids) and the tool schemas it
 * offers.
 */
function staticRefs(manifest: AgentRunnerManifest, auth: RunAuthorization) {
  const { conversation_id: _c, event_id: _e, actor_id: _a, ...grant } = auth as RunAuthorization & Record<string, unknown>;
  const history = { ...auth.history, conversation_ids: [] };
  const tools = auth.tools.names.map((name) => (name === PROJECT_CLI_TOOL_NAME ? { name, description: projectCliToolDescription, parameters: projectCliParametersJson } : { name }));
  return {
    system_policy: { ref: hashOf({ permissions: manifest.permissions, context: manifest.context, grant: { ...grant, history } }), kind: "policy" },
    tool_schemas: { ref: hashOf(tools), kind: "tool_schemas" },
  };
}

/** What the context inlines, and why, in the runner's words (never a silent fallback). */
function inlinePolicy(policy: AgentRunnerManifest["context"], tailCount: number, summary: ConversationSummary | null) {
  type Mode = AgentRunContext["context"]["inline_policy"]["mode"];
  const tailReason = `the runner's context policy asks for up to ${policy.max_inline_events} recent messages`;
  if (policy.bootstrap === "summary_tail" && summary && !summary.ok) {
    return { mode: (tailCount > 0 ? "recent_tail" : "current_event") as Mode, reason: `summary_tail: the summary of the earlier messages could not be made (${summary.reason}); ${tailCount > 0 ? "only the recent tail is inlined" : "only the current event is inlined"}` };
  }
  if (policy.bootstrap === "summary_tail" && (summary || tailCount > 0)) {
    return { mode: "summary_tail" as Mode, reason: summary ? `${tailReason}, and a summary of the messages before them` : `${tailReason}; nothing precedes them to summarise` };
  }
  if (tailCount > 0) return { mode: policy.bootstrap as Mode, reason: tailReason };
  return { mode: (policy.bootstrap === "none" ? "none" : "current_event") as Mode, reason: "event-first: only the current event is inlined; pull history through the host API" };
}

function summaryMetadata(summary: ConversationSummary | null): Record<string, unknown> {
  if (!summary) return {};
  if (!summary.ok) return { summary_error: summary.reason };
  return { summary: { covers_through_seq: summary.coversSeq, message_count: summary.messageCount, model: summary.model, refreshed: summary.refreshed } };
}

/** What the run may use (the frozen grants, with what each names), the run's model first. */
function runResources(auth: RunAuthorization, model: ReturnType<typeof currentModelInfo>, attachments: ReturnType<typeof artifactRef>[], kbNames: Map<string, string>): AgentRunContext["resources"] {
  const artifactOps = auth.artifacts.operations;
  return {
    // The run's model first, marked selected: the one the request picked, or the default.
    models: auth.models.operations.length
      ? [...auth.models.model_ids]
          .sort((a, b) => Number(b === model.id) - Number(a === model.id))
          .map((id) => ({ model_id: id, provider: findModel(id)?.provider ?? "unknown", operations: auth.models.operations, selected: id === model.id }))
      : [],
    tools: auth.tools.operations.length
      ? auth.tools.names.map((name) => ({ tool_name: name, description: name === PROJECT_CLI_TOOL_NAME ? projectCliToolDescription : name, operations: auth.tools.operations }))
      : [],
    knowledge_bases: auth.knowledge_bases.operations.length
      ? auth.knowledge_bases.ids.map((id) => ({ kb_id: id, name: kbNames.get(id) ?? id, operations: auth.knowledge_bases.operations }))
      : [],
    artifacts: artifactOps.length ? attachments.map((a) => ({ artifact_id: a.artifact_id, operations: artifactOps })) : [],
    storage: { areas: auth.storage.areas },
    history: { operations: auth.history.operations, conversation_ids: auth.history.operations.length ? auth.history.conversation_ids : [] },
    events: { operations: auth.events.operations },
    state: { scopes: auth.state.scopes },
    platform_capabilities: { actions: auth.platform_api.actions },
  };
}

/** Where the run stands in its conversation, what was inlined, and which APIs fetch the rest. */
function contextAccess(
  threadId: string,
  position: { eventSeq: number | null; userSeq: number },
  inlined: { count: number; mode: ReturnType<typeof inlinePolicy>["mode"]; reason: string },
  auth: RunAuthorization,
): AgentRunContext["context"] {
  const { userSeq } = position;
  const artifactOps = auth.artifacts.operations;
  return {
    conversation_id: threadId,
    thread_id: threadId,
    latest_cursor: userSeq > 0 ? encodeTranscriptCursor(userSeq) : null,
    event_seq: position.eventSeq,
    transcript_seq: userSeq,
    has_history_before: userSeq > 1,
    inline_policy: {
      mode: inlined.mode,
      delivered_count: inlined.count,
      source_total_count: Math.max(0, userSeq - 1),
      messages_complete: inlined.count >= Math.max(0, userSeq - 1),
      reason: inlined.reason,
    },
    available_apis: {
      history_page: auth.history.operations.includes("page"),
      history_search: auth.history.operations.includes("search"),
      event_get: auth.events.operations.includes("get"),
      event_page: auth.events.operations.includes("page"),
      artifact_metadata: artifactOps.includes("metadata"),
      artifact_read: artifactOps.includes("read"),
      state: auth.state.scopes.length > 0,
      storage: auth.storage.areas.length > 0,
    },
  };
}

/** The binding's state for this run, the thread's position, and the history its context policy inlines. */
async function gatherConversation(src: RunContextSource, modelId: string) {
  const { run, authorization: auth, manifest, binding, entry } = src;
  const policy = manifest.context;
  const [position, state] = await Promise.all([
    findTranscriptPosition({ threadId: run.threadId, runId: run.id }),
    binding
      ? loadStateSnapshot({
          bindingId: binding.id,
          scopes: auth.state.scopes,
          ids: stateScopeIds({ threadId: run.threadId, userId: run.userId, eventId: entry.id, runnerId: auth.runner_id, bindingId: binding.id }),
        })
      : Promise.resolve({ conversation: {}, actor: {}, subject: {}, runner: {}, binding: {} }),
  ]);
  const userSeq = position.userSeq ?? position.lastSeq;
  const wantsTail = policy.bootstrap === "recent_tail" || policy.bootstrap === "summary_tail";
  const tail =
    wantsTail && policy.max_inline_events > 0
      ? await bootstrapTail({ threadId: run.threadId, beforeSeq: userSeq, maxEvents: policy.max_inline_events, maxBytes: policy.max_inline_bytes })
      : [];
  // summary_tail: what precedes the tail (everything before the current event when none is inlined).
  const summary = policy.bootstrap === "summary_tail" ? await summarizeEarlier({ threadId: run.threadId, runId: run.id, beforeSeq: tail[0]?.seq ?? userSeq, modelId }) : null;
  return { position: { eventSeq: position.eventSeq, userSeq }, state, tail, summary, inline: inlinePolicy(policy, tail.length, summary) };
}

/** Who set the run off: a schedule (its runs are accepted as the scheduler's), the web UI, or an API client. */
function triggerSource(src: RunContextSource): "scheduler" | "webui" | "api" {
  if (src.run.protocol === SCHEDULER_SOURCE) return SCHEDULER_SOURCE;
  return src.via === "session" ? "webui" : "api";
}

export async function buildRunContext(src: RunContextSource): Promise<AgentRunContext> {
  const { run, input, authorization: auth, manifest, binding, entry } = src;
  const user = userMessageParts(input);
  const model = findModel(src.generation.model) ?? currentModelInfo();
  const { position, state, tail, summary, inline } = await gatherConversation(src, model.id);
  // Unix seconds, the spec's unit, as everywhere in the host API.
  const nowSeconds = Math.floor(Date.now() / 1000);
  const attachments = src.attachments.map(artifactRef);
  return {
    run_id: run.id,
    trigger: { type: entry.eventType, source: triggerSource(src), timestamp: nowSeconds },
    event: {
      event_id: entry.id,
      event_type: entry.eventType,
      event_time: nowSeconds,
      source: entry.source,
      source_event_type: entry.sourceEventType,
      raw_ref: entry.rawRef,
      data: entry.data,
    },
    conversation: { conversation_id: run.threadId, thread_id: run.threadId, launcher_type: "user", launcher_id: run.userId },
    actor: { actor_type: "user", actor_id: run.userId, metadata: {} },
    subject: { subject_type: "message", subject_id: user.messageId, data: {} },
    input: {
      text: user.text,
      contents: [...(user.text ? [{ type: "text" as const, text: user.text }] : []), ...attachments.map((a) => ({ type: "artifact" as const, artifact: a }))],
      attachments,
    },
    delivery: {
      surface: src.via === "session" ? "webui" : run.protocol,
      supports_streaming: true,
      supports_edit: auth.platform_api.actions.includes("message.edit"),
      supports_reaction: false,
      max_message_size: null,
      platform_capabilities: {},
    },
    resources: runResources(auth, model, attachments, src.knowledgeBaseNames),
    context: contextAccess(run.threadId, position, { count: tail.length, ...inline }, auth),
    state,
    runtime: {
      host: "dispatch",
      // The run's trace, exported or not (the runner also gets its `traceparent`); the task id for a run older than traces.
      trace_id: (run.traceParent ? traceIdOf(run.traceParent) : activeTraceId()) ?? run.id,
      deadline_at: run.deadlineAt.getTime() / 1000,
      locale: requestLocale(input),
      timezone: resolveTimeZone(input),
      static_refs: staticRefs(manifest, auth),
      metadata: {},
    },
    config: binding?.config ?? {},
    bootstrap:
      tail.length > 0 || summary
        ? { messages: tail.map((m) => ({ role: m.role, content: m.content, seq: m.seq })), summary: summary?.ok ? summary.summary : null, artifacts: [], metadata: summaryMetadata(summary) }
        : null,
    adapter: null,
    metadata: { request: clientRequest(input, src.generation, model.id, run.protocol) },
  };
}
