import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { describeIssues } from "../protocols/runner/manifest";
import { deliverToRun } from "./live-delivery";
import { editRunnerMessage, insertPlatformMessage } from "./repository/platform";

// Platform actions (spec §6.6, §7.8) with the web chat as the platform, performed alike for
// `platform/request_action` and an `action.requested` result: `message.send` adds a follow-up
// message to the run's conversation, `message.edit` changes one of the runner's own earlier
// messages there. The run's grant (manifest ∩ binding policy, frozen when the run started) must
// name the action; the target must be the run's own conversation, and an edit the runner's own
// message. Everything else is refused with a typed reason, and nothing is written.

export const PLATFORM_ACTIONS = ["message.send", "message.edit"] as const;
export const MAX_PLATFORM_MESSAGE_CHARS = 32_000;

export type PlatformRefusalReason = "not_granted" | "unsupported" | "invalid_payload" | "another_conversation" | "message_not_found" | "not_own_message";

export class PlatformActionRefusal extends Error {
  constructor(
    readonly reason: PlatformRefusalReason,
    message: string,
  ) {
    super(message);
    this.name = "PlatformActionRefusal";
  }
}

/** The run asking: its row id, conversation, runner and granted actions. */
export type PlatformActionScope = { runId: string; threadId: string; runnerId: string; grantedActions: readonly string[] };
export type PlatformActionRequest = { action: string; target: Record<string, unknown>; payload: Record<string, unknown> };
export type PlatformActionResult = { message_id: string; conversation_id: string };

const text = z.string().min(1, "must not be empty").max(MAX_PLATFORM_MESSAGE_CHARS, `must be at most ${MAX_PLATFORM_MESSAGE_CHARS} characters`);
const conversation = { conversation_id: z.string().max(200).optional(), thread_id: z.string().max(200).optional() };
const SCHEMAS = {
  "message.send": { target: z.object(conversation), payload: z.object({ text }) },
  "message.edit": { target: z.object({ message_id: z.string().min(1).max(200), ...conversation }), payload: z.object({ text }) },
};

function parse<T extends z.ZodType>(schema: T, value: unknown, where: string): z.output<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new PlatformActionRefusal("invalid_payload", `${where}: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

function checkConversation(target: { conversation_id?: string; thread_id?: string }, threadId: string): void {
  for (const named of [target.conversation_id, target.thread_id]) {
    if (named !== undefined && named !== threadId) {
      throw new PlatformActionRefusal("another_conversation", "A runner may only post in the conversation of its run; leave target.conversation_id out or give ctx.conversation.conversation_id");
    }
  }
}

/** The action's target and payload, checked against its schemas and the run's conversation. */
function readRequest<A extends keyof typeof SCHEMAS>(action: A, req: PlatformActionRequest, threadId: string) {
  const target = parse(SCHEMAS[action].target, req.target, "target") as z.output<(typeof SCHEMAS)[A]["target"]>;
  const { text } = parse(SCHEMAS[action].payload, req.payload, "payload");
  checkConversation(target, threadId);
  return { target, text };
}

export async function performPlatformAction(scope: PlatformActionScope, req: PlatformActionRequest): Promise<PlatformActionResult> {
  if (!scope.grantedActions.includes(req.action)) {
    throw new PlatformActionRefusal("not_granted", `Platform action ${req.action} is not granted to this run: the runner's manifest and the binding's policy must both allow it`);
  }
  switch (req.action) {
    case "message.send": {
      const { text: content } = readRequest("message.send", req, scope.threadId);
      const message = await insertPlatformMessage({
        runId: scope.runId,
        threadId: scope.threadId,
        messageId: `msg_${randomUUID()}`,
        content,
        metadata: { platform_action: "message.send", runner_id: scope.runnerId },
      });
      await deliverToRun(scope.runId, { kind: "sent", message });
      return { message_id: message.messageId, conversation_id: scope.threadId };
    }
    case "message.edit": {
      const { target, text: content } = readRequest("message.edit", req, scope.threadId);
      const edit = await editRunnerMessage({
        threadId: scope.threadId,
        messageId: target.message_id,
        runnerId: scope.runnerId,
        content,
        metadata: { edited_at: new Date().toISOString(), edited_by: "platform_action" },
      });
      if (edit.outcome === "not_found") throw new PlatformActionRefusal("message_not_found", `No message ${target.message_id} in this run's conversation`);
      if (edit.outcome === "not_own") throw new PlatformActionRefusal("not_own_message", `Message ${target.message_id} was not written by this runner; a runner may only edit its own messages`);
      await deliverToRun(scope.runId, { kind: "edited", message: edit.message });
      return { message_id: edit.message.messageId, conversation_id: scope.threadId };
    }
    default:
      throw new PlatformActionRefusal("unsupported", `This host performs ${PLATFORM_ACTIONS.join(" and ")} only; ${req.action} is granted but has no platform to act on`);
  }
}
