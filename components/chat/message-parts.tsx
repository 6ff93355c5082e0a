import { UiSchemaView } from "@/components/ui-schema/ui-schema-view";

// The bubbles of a conversation, shared by the server-rendered history and the live stream
// so a message looks the same before and after a reload. No hooks: both sides render them.

export type ImageRef = { url: string; mimeType?: string; name?: string };

const MAX_TOOL_TEXT = 4_000;

export function UserMessage({ text, images }: { text: string; images: ImageRef[] }) {
  return (
    <article className="chat-msg chat-msg-user" data-testid="user-message" aria-label="You said">
      {images.length > 0 ? (
        <div className="chat-msg-images">
          {images.map((image) => (
            <a key={image.url} href={image.url} target="_blank" rel="noreferrer" className="chat-msg-image-link">
              {/* eslint-disable-next-line @next/next/no-img-element -- signed attachment URLs live on any storage host and expire */}
              <img src={image.url} alt={image.name ? `Attached image ${image.name}` : "Attached image"} className="chat-msg-image" data-testid="user-message-image" />
            </a>
          ))}
        </div>
      ) : null}
      {text ? <div className="chat-msg-text">{text}</div> : null}
    </article>
  );
}

export function AssistantMessage({ text, streaming = false }: { text: string; streaming?: boolean }) {
  return (
    <article className="chat-msg chat-msg-assistant" data-testid="assistant-message" data-streaming={streaming ? "true" : "false"} aria-label="Assistant said">
      <div className="chat-msg-text">
        {text}
        {streaming ? <span className="chat-caret" aria-hidden="true" /> : null}
      </div>
    </article>
  );
}

type ToolStatus = "running" | "done" | "stopped";

const STATUS_WORDS: Record<ToolStatus, string> = { running: "running…", done: "done", stopped: "stopped" };

/** A tool call: its name while it runs, then its card (UiSchema) or, without one, its raw output. */
export function ToolCall({ name, status, uiSchema, content }: { name: string | null; status: ToolStatus; uiSchema: unknown; content: string | null }) {
  const hasCard = uiSchema !== null && uiSchema !== undefined;
  return (
    <div className="chat-tool" data-testid="tool-call" data-status={status} data-tool={name ?? undefined}>
      {status !== "done" || !hasCard ? (
        <div className="chat-tool-head">
          {status === "running" ? <span className="chat-spinner" aria-hidden="true" /> : null}
          <span className="chat-tool-name">{name ?? "Tool result"}</span>
          {name ? <span className="muted">{STATUS_WORDS[status]}</span> : null}
        </div>
      ) : null}
      {hasCard ? <UiSchemaView schema={uiSchema} /> : null}
      {!hasCard && content ? (
        <details className="chat-tool-output">
          <summary>Output</summary>
          <pre>{content.length > MAX_TOOL_TEXT ? `${content.slice(0, MAX_TOOL_TEXT)}…` : content}</pre>
        </details>
      ) : null}
    </div>
  );
}

/** "Today", "Yesterday" or the date, for a UTC day `YYYY-MM-DD` as /history groups them. */
export function dayLabel(day: string, now: Date = new Date()): string {
  const today = now.toISOString().slice(0, 10);
  const yesterday = new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10);
  if (day === today) return "Today";
  if (day === yesterday) return "Yesterday";
  const date = new Date(`${day}T00:00:00Z`);
  return new Intl.DateTimeFormat("en", { weekday: "long", day: "numeric", month: "long", year: "numeric", timeZone: "UTC" }).format(date);
}

export function DayHeader({ day, id }: { day: string; id?: string }) {
  return (
    <h2 className="chat-day-header" id={id} tabIndex={-1} data-testid="day-header" data-day={day}>
      <span>{dayLabel(day)}</span>
    </h2>
  );
}
