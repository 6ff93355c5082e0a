// Types for every protocol entity, inferred from the host's own zod schemas so the SDK and
// the host can never disagree about a field.
import type { z } from "zod";
import type * as ctx from "../../server/protocols/runner/context";
import type * as res from "../../server/protocols/runner/result";

export type {
  AgentRunnerManifest,
  AgentRunnerManifestInput,
  AgentRunnerCapabilities,
  AgentRunnerPermissions,
  AgentRunnerContextPolicy,
  DynamicFormItem,
  I18nObject,
  ListAgentRunnersResponse,
} from "../../server/protocols/runner/manifest";

export type { AgentRunContext, AgentRunRequest, AgentEventContext, AgentResources, ArtifactRef, ContentElement, StateScope } from "../../server/protocols/runner/context";
export type AgentTrigger = z.infer<typeof ctx.triggerSchema>;
export type RawEventRef = z.infer<typeof ctx.rawEventRefSchema>;
export type ConversationContext = z.infer<typeof ctx.conversationContextSchema>;
export type ActorContext = z.infer<typeof ctx.actorContextSchema>;
export type SubjectContext = z.infer<typeof ctx.subjectContextSchema>;
export type AgentInput = z.infer<typeof ctx.agentInputSchema>;
export type DeliveryContext = z.infer<typeof ctx.deliveryContextSchema>;
export type ModelResource = z.infer<typeof ctx.modelResourceSchema>;
export type ToolResource = z.infer<typeof ctx.toolResourceSchema>;
export type KnowledgeBaseResource = z.infer<typeof ctx.knowledgeBaseResourceSchema>;
export type ArtifactResource = z.infer<typeof ctx.artifactResourceSchema>;
export type StorageResource = z.infer<typeof ctx.storageResourceSchema>;
export type HistoryResource = z.infer<typeof ctx.historyResourceSchema>;
export type ContextAccess = z.infer<typeof ctx.contextAccessSchema>;
export type AgentRunState = z.infer<typeof ctx.runStateSchema>;
export type AgentRuntimeContext = z.infer<typeof ctx.runtimeContextSchema>;
export type BootstrapMessage = z.infer<typeof ctx.bootstrapMessageSchema>;
export type BootstrapContext = z.infer<typeof ctx.bootstrapContextSchema>;

export type { AgentRunResult, KnownResultType, ResultData } from "../../server/protocols/runner/result";
export type MessageDeltaData = res.ResultData<"message.delta">;
export type MessageCompletedData = res.ResultData<"message.completed">;
export type ToolCallStartedData = res.ResultData<"tool.call.started">;
export type ToolCallCompletedData = res.ResultData<"tool.call.completed">;
export type ArtifactCreatedData = res.ResultData<"artifact.created">;
export type StateUpdatedData = res.ResultData<"state.updated">;
export type ActionRequestedData = res.ResultData<"action.requested">;
export type RunCompletedData = res.ResultData<"run.completed">;
export type RunFailedData = res.ResultData<"run.failed">;
