"use client";

import { Fragment } from "react";
import { z } from "zod";
import type { HistoryMessage, HistorySnapshot } from "@/server/protocols/ag-ui/history";
import { ApprovalCard } from "./approval-card";
import { useI18n } from "@/components/i18n/use-dictionary";
import { localDay } from "@/components/i18n/format";
import { AssistantMessage, DayHeader, Reasoning, StoppedNote, ToolCall, UserMessage, type ImageRef } from "./message-parts";
import { BranchSwitcher } from "./branch-switcher";
import { useMessageActions } from "./message-actions";

// One page of a thread as /api/v1/agent/history serves it (a UTC day), with a header for
// each of the viewer's own days in it: near midnight one UTC day spans two local ones.

// History may also list every attachment of a user message (spec/agent-chat-messages.md),
// beside the single `url` of spec/agent-run-input.md; both are shown, once each.
const attachmentsSchema = z.object({
  attachments: z
    .array(
      z.object({
        url: z.string().min(1),
        mimeType: z.string().optional(),
        mime_type: z.string().optional(),
        file_name: z.string().optional(),
        size: z.number().optional(),
      }),
    )
    .optional(),
  content: z
    .array(z.object({ type: z.string(), url: z.string().optional(), mimeType: z.string().optional() }))
    .optional()
    .catch(undefined),
});

function userImages(message: Extract<HistoryMessage, { role: "user" }>): ImageRef[] {
  const images: ImageRef[] = message.url ? [{ url: message.url }] : [];
  const extra = attachmentsSchema.safeParse(message);
  if (extra.success) {
    for (const a of extra.data.attachments ?? []) images.push({ url: a.url, mimeType: a.mimeType ?? a.mime_type, name: a.file_name, size: a.size });
    for (const part of extra.data.content ?? []) if (part.type === "binary" && part.url) images.push({ url: part.url, mimeType: part.mimeType });
  }
  // `url` (the first attachment's) comes first with no type: the attachments' entry, typed, wins.
  const typed = images.filter((image) => image.mimeType !== undefined || !images.some((other) => other.url === image.url && other.mimeType !== undefined));
  return typed.filter((image, i) => typed.findIndex((other) => other.url === image.url) === i);
}

function HistoryEntry({ message, intermediate }: { message: HistoryMessage; intermediate: boolean }) {
  if (message.role === "user") return <UserMessage messageId={message.id} text={message.content} images={userImages(message)} />;
  if (message.role === "reasoning") return <Reasoning text={message.content} durationMs={message.durationMs} />;
  if (message.role === "tool" && message.approval) return <ApprovalCard approval={message.approval} uiSchema={message.uiSchema} />;
  if (message.role === "tool") return <ToolCall name={null} status="done" uiSchema={message.uiSchema} content={message.content} intermediate={intermediate} />;
  return (
    <>
      {message.content ? <AssistantMessage text={message.content} /> : null}
      {message.uiSchema ? <ToolCall name={null} status="done" uiSchema={message.uiSchema} content={null} /> : null}
    </>
  );
}

/** `stopped`: ids of the messages that end an answer the user stopped (stoppedAnswersIn). */
/** Whether another tool result follows message `i` before the next question: it was a step, not the answer. */
function anotherToolFollows(messages: readonly HistoryMessage[], i: number): boolean {
  for (const later of messages.slice(i + 1)) {
    if (later.role === "user") return false;
    if (later.role === "tool") return true;
  }
  return false;
}

export function HistoryDay({ snapshot, stopped }: { snapshot: HistorySnapshot; stopped: readonly string[] }) {
  const { t, timeZone } = useI18n();
  const forkedAt = useMessageActions()?.forkedAt ?? null;
  if (!snapshot.day || snapshot.messages.length === 0) return null;
  // While a branching question's run goes, the old branch from the message it forks at is left out
  // (the new turn shows the question again); the page then shows the thread's new current branch.
  const cut = forkedAt ? snapshot.messages.findIndex((m) => m.id === forkedAt) : -1;
  const messages = cut >= 0 ? snapshot.messages.slice(0, cut) : snapshot.messages;
  let previous = "";
  const branches = new Map((snapshot.branches ?? []).map((point) => [point.messageId, point]));
  return (
    <section className="chat-day" aria-label={t.chat.messagesFrom(snapshot.day)} data-testid="history-day" data-day={snapshot.day}>
      {messages.map((message, i) => {
        const day = localDay(message.timestamp, timeZone);
        const header = day !== previous ? <DayHeader day={day} id={i === 0 ? `day-${snapshot.day}` : undefined} /> : null;
        previous = day;
        return (
          <Fragment key={message.seq}>
            {header}
            <HistoryEntry message={message} intermediate={message.role === "tool" && anotherToolFollows(messages, i)} />
            {message.role !== "user" && stopped.includes(message.id) ? <StoppedNote /> : null}
            {snapshot.threadId && branches.has(message.id) ? <BranchSwitcher threadId={snapshot.threadId} point={branches.get(message.id)!} /> : null}
          </Fragment>
        );
      })}
    </section>
  );
}
