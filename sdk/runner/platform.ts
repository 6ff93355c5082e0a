// Platform actions (spec §6.6, §7.8) with the web chat as the platform: a follow-up message in
// the run's conversation, and an edit of one of the runner's own earlier messages. Two ways, the
// same rules: call the host now (answers the message id, throws HostApiError on a refusal), or
// yield a result the host performs in stream order (a refusal lands in the run's result log).
// Both need the action in the manifest's `permissions.platform_api` and the binding's policy.
import type { CallOptions, HostClient } from "./host-client";
import { actionRequested, type ResultDraft } from "./results";

/** What the host answers for a performed action. */
export type PlatformMessageRef = { message_id: string; conversation_id: string };

function messageRef(result: unknown): PlatformMessageRef {
  const r = (result ?? {}) as Partial<PlatformMessageRef>;
  if (typeof r.message_id !== "string" || typeof r.conversation_id !== "string") throw new Error("the host's answer names no message");
  return { message_id: r.message_id, conversation_id: r.conversation_id };
}

/** Sends a follow-up message to the run's conversation now; resolves with its id (to edit it later). */
export async function sendMessage(host: HostClient, text: string, opts?: CallOptions): Promise<PlatformMessageRef> {
  const answer = await host.platform.requestAction({ action: "message.send", target: {}, payload: { text } }, opts);
  return messageRef(answer.result);
}

/** Replaces the text of one of this runner's own messages of the run's conversation. */
export async function editMessage(host: HostClient, messageId: string, text: string, opts?: CallOptions): Promise<PlatformMessageRef> {
  const answer = await host.platform.requestAction({ action: "message.edit", target: { message_id: messageId }, payload: { text } }, opts);
  return messageRef(answer.result);
}

/** The same as sendMessage, as a result to yield: the host sends it in stream order. */
export const messageSent = (text: string): ResultDraft => actionRequested("message.send", {}, { text });

/** The same as editMessage, as a result to yield. */
export const messageEdited = (messageId: string, text: string): ResultDraft => actionRequested("message.edit", { message_id: messageId }, { text });
