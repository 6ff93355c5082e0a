import {
  AbstractAgent,
  HttpAgent,
  runHttpRequest,
  transformHttpEventStream,
  type BaseEvent,
  type ContentPart,
  type RunAgentInput,
  type UserMessage,
} from "@ag-ui/client";
import type { Observable } from "rxjs";
import { isDocumentType } from "./attachment-types";
import type { LiveImage } from "./live-turn";
import { selectedAgent } from "./agent-picker";
import { selectedModel } from "./model-picker";
import { errorFromStatus, type ChatErrorKind } from "./chat-errors";

// The chat talks to Dispatch through its public AG-UI endpoints with the official client,
// authenticated by the browser session (same-origin requests carry the cookie).

const RUNS_URL = "/api/v1/agent/runs";
const TERMINAL = new Set(["RUN_FINISHED", "RUN_ERROR"]);

export type RunOutcome = { ended: boolean; started: boolean };

/** How a question branches the thread (forwardedProps.branch, docs/branches.md). */
export type BranchRequest = { replace: string } | { regenerate: string };

/** Event handler for one run; returns when the stream ends. */
type OnEvent = (event: BaseEvent) => void;

function trackingSubscriber(onEvent: OnEvent, seen: RunOutcome) {
  return {
    onEvent: ({ event }: { event: BaseEvent }) => {
      if (event.type === "RUN_STARTED") seen.started = true;
      if (TERMINAL.has(event.type)) seen.ended = true;
      onEvent(event);
    },
  };
}

export function userMessage(id: string, text: string, images: LiveImage[]): UserMessage {
  if (images.length === 0) return { id, role: "user", content: text };
  const parts: ContentPart[] = [];
  if (text) parts.push({ type: "text", text });
  // AG-UI 1.0's image part is what the official client sends for the spec's binary block; a
  // document (PDF, text, Markdown, CSV, JSON) goes as AG-UI 1.0's document part.
  for (const image of images) {
    const source = { type: "url" as const, value: image.url, mimeType: image.mimeType };
    parts.push(isDocumentType(image.mimeType) ? { type: "document", source } : { type: "image", source });
  }
  return { id, role: "user", content: parts };
}

/**
 * Starts a run and streams its events. The spec wants exactly one user message per run
 * (the server keeps the thread), so the agent is given only the new message.
 */
export async function startRun(opts: {
  threadId: string;
  runId: string;
  message: UserMessage;
  /** An edit of a stored question, or a new answer to one. */
  branch?: BranchRequest;
  abortController: AbortController;
  /** The zone chosen in settings; the browser's own when none. */
  timeZone: string | null;
  /** The page's language: the run's cards are written in it. */
  locale: string;
  onEvent: OnEvent;
}): Promise<RunOutcome> {
  const agent = new HttpAgent({ url: RUNS_URL, threadId: opts.threadId });
  agent.setMessages([opts.message]);
  const seen: RunOutcome = { ended: false, started: false };
  // The agent reads "tomorrow" and "at 10" in the user's own time zone.
  // The model picker's choice, when the server offers several models.
  const model = selectedModel();
  // The agent picker's choice, when the user has several agents bound.
  const chosenAgent = selectedAgent();
  const forwardedProps = {
    timeZone: opts.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    locale: opts.locale,
    ...(model ? { model } : {}),
    ...(chosenAgent ? { agent: chosenAgent } : {}),
    ...(opts.branch ? { branch: opts.branch } : {}),
  };
  await agent.runAgent({ runId: opts.runId, abortController: opts.abortController, forwardedProps }, trackingSubscriber(opts.onEvent, seen));
  return seen;
}

/** Follows a run already under way from its event log: `GET /runs/{runId}/events`, replayed from the start. */
class RunEventsAgent extends AbstractAgent {
  private readonly eventsUrl: string;
  private readonly signal: AbortSignal;

  constructor(opts: { threadId: string; runId: string; signal: AbortSignal }) {
    super({ threadId: opts.threadId });
    this.eventsUrl = `${RUNS_URL}/${encodeURIComponent(opts.runId)}/events`;
    this.signal = opts.signal;
  }

  run(input: RunAgentInput): Observable<BaseEvent> {
    return this.connect(input);
  }

  protected connect(_input: RunAgentInput): Observable<BaseEvent> {
    const request = () => fetch(this.eventsUrl, { headers: { accept: "text/event-stream" }, cache: "no-store", signal: this.signal });
    return transformHttpEventStream(runHttpRequest(request));
  }
}

export async function followRun(opts: { threadId: string; runId: string; signal: AbortSignal; onEvent: OnEvent }): Promise<RunOutcome> {
  const agent = new RunEventsAgent(opts);
  const seen: RunOutcome = { ended: false, started: false };
  await agent.connectAgent({}, trackingSubscriber(opts.onEvent, seen));
  return seen;
}

/** Asks the server to stop the run; the stream then ends with RUN_FINISHED (cancelled). */
export async function cancelRun(runId: string): Promise<void> {
  const res = await fetch(`${RUNS_URL}/${encodeURIComponent(runId)}/cancel`, { method: "POST" });
  if (!res.ok) throw Object.assign(new Error(`HTTP ${res.status}`), { status: res.status, payload: await res.json().catch(() => null) });
}

// The messages @ag-ui/client itself treats as an abort rather than a failure.
const ABORT_MESSAGES = new Set(["Fetch is aborted", "signal is aborted without reason"]);

export function isAbortError(err: unknown): boolean {
  return err instanceof Error && (err.name === "AbortError" || ABORT_MESSAGES.has(err.message));
}

/** What the person in the chat is told about a failed request (see chat-errors.ts). */
export function describeError(err: unknown): ChatErrorKind {
  const e = err as { status?: number; payload?: unknown } | null;
  const payload = e?.payload as { error?: { code?: unknown } } | undefined;
  if (typeof e?.status === "number") return errorFromStatus(e.status, typeof payload?.error?.code === "string" ? payload.error.code : undefined);
  if (err instanceof TypeError) return "network";
  return "generic";
}
