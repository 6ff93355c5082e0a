import { z } from "zod";
import type { HistoryMessage, HistorySnapshot } from "@/server/protocols/ag-ui/history";
import { ApprovalCard } from "./approval-card";
import { AssistantMessage, DayHeader, ToolCall, UserMessage, type ImageRef } from "./message-parts";

// One day of a thread as /api/v1/agent/history serves it, rendered on the server.

// History may also list every attachment of a user message (spec/agent-chat-messages.md),
// beside the single `url` of spec/agent-run-input.md; both are shown, once each.
const attachmentsSchema = z.object({
  attachments: z.array(z.object({ url: z.string().min(1), mimeType: z.string().optional(), mime_type: z.string().optional() })).optional(),
  content: z
    .array(z.object({ type: z.string(), url: z.string().optional(), mimeType: z.string().optional() }))
    .optional()
    .catch(undefined),
});

function userImages(message: Extract<HistoryMessage, { role: "user" }>): ImageRef[] {
  const images: ImageRef[] = message.url ? [{ url: message.url }] : [];
  const extra = attachmentsSchema.safeParse(message);
  if (extra.success) {
    for (const a of extra.data.attachments ?? []) images.push({ url: a.url, mimeType: a.mimeType ?? a.mime_type });
    for (const part of extra.data.content ?? []) if (part.type === "binary" && part.url) images.push({ url: part.url, mimeType: part.mimeType });
  }
  return images.filter((image, i) => images.findIndex((other) => other.url === image.url) === i);
}

function HistoryEntry({ message }: { message: HistoryMessage }) {
  if (message.role === "user") return <UserMessage text={message.content} images={userImages(message)} />;
  if (message.role === "tool" && message.approval) return <ApprovalCard approval={message.approval} uiSchema={message.uiSchema} />;
  if (message.role === "tool") return <ToolCall name={null} status="done" uiSchema={message.uiSchema} content={message.content} />;
  return (
    <>
      {message.content ? <AssistantMessage text={message.content} /> : null}
      {message.uiSchema ? <ToolCall name={null} status="done" uiSchema={message.uiSchema} content={null} /> : null}
    </>
  );
}

export function HistoryDay({ snapshot }: { snapshot: HistorySnapshot }) {
  if (!snapshot.day || snapshot.messages.length === 0) return null;
  return (
    <section className="chat-day" aria-label={`Messages from ${snapshot.day}`} data-testid="history-day" data-day={snapshot.day}>
      <DayHeader day={snapshot.day} id={`day-${snapshot.day}`} />
      {snapshot.messages.map((message) => (
        <HistoryEntry key={`${message.seq}`} message={message} />
      ))}
    </section>
  );
}
