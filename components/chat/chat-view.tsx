"use client";

import { useCallback, useLayoutEffect, useRef, useState, useTransition } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { loadOlderHistory } from "@/app/(chat)/chat/actions";
import { useTRPC } from "@/components/trpc-provider";
import { ApprovalCard } from "./approval-card";
import { Composer } from "./composer";
import type { LiveTurn } from "./live-turn";
import { AssistantMessage, DayHeader, ToolCall, UserMessage } from "./message-parts";
import { useChatRuns } from "./use-chat-runs";

const SUGGESTIONS = [
  "What's on my calendar tomorrow?",
  "Schedule a call with Ana on Friday at 10 for 30 minutes",
  "What do you remember about me?",
];

// How close to the bottom (px) still counts as "reading the newest message".
const STICKY_PX = 80;

type Props = {
  threadId: string;
  title: string | null;
  day: string | null;
  hasMore: boolean;
  hasHistory: boolean;
  activeRunId: string | null;
  /** The newest day of history, rendered on the server. */
  children: React.ReactNode;
};

export function ChatView({ threadId, title, day, hasMore, hasHistory, activeRunId, children }: Props) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refreshThreads = useCallback(() => void queryClient.invalidateQueries({ queryKey: trpc.threads.list.pathKey() }), [queryClient, trpc]);
  const { turns, busy, send, stop, retry, join } = useChatRuns({ threadId, activeRunId, onRunStarted: refreshThreads, onRunEnded: refreshThreads });
  const scroller = useRef<HTMLDivElement>(null);
  const sticky = useRef(true);
  const [today] = useState(() => new Date().toISOString().slice(0, 10));

  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && sticky.current) el.scrollTop = el.scrollHeight;
  }, [turns]);

  const open = turns.find((t) => t.status === "sending" || t.status === "running");
  const onSend = (input: Parameters<typeof send>[0]) => {
    sticky.current = true;
    send(input);
  };

  return (
    <div className="chat-view" data-testid="chat-view" data-thread-id={threadId}>
      <div
        className="chat-scroll"
        ref={scroller}
        onScroll={(e) => {
          const el = e.currentTarget;
          sticky.current = el.scrollHeight - el.scrollTop - el.clientHeight < STICKY_PX;
        }}
      >
        <div className="chat-column">
          <h1 className="chat-title" data-testid="chat-title">
            {title ?? provisionalTitle(turns[0]?.user?.text) ?? "New chat"}
          </h1>
          {day ? <OlderHistory key={threadId} threadId={threadId} before={day} hasMore={hasMore} scroller={scroller} /> : null}
          {children}
          {!hasHistory && turns.length === 0 ? <EmptyState onPick={(text) => onSend({ text, images: [] })} /> : null}
          {turns.length > 0 && day !== today ? <DayHeader day={today} /> : null}
          <div className="chat-live" role="log" aria-label="Current conversation" aria-busy={busy} data-testid="live-log">
            {turns.map((turn) => (
              <LiveTurnView key={turn.key} turn={turn} onRetry={busy ? null : retry} onContinue={join} />
            ))}
          </div>
        </div>
      </div>
      <Composer threadId={threadId} busy={busy} stopping={open?.stopping ?? false} onSend={onSend} onStop={() => void stop()} />
    </div>
  );
}

/** Until the page reloads, a new chat is called what the server will call it: its first line. */
function provisionalTitle(text: string | undefined): string | null {
  const line = text?.replace(/\s+/g, " ").trim();
  if (!line) return null;
  return line.length > 80 ? `${line.slice(0, 77)}…` : line;
}

function EmptyState({ onPick }: { onPick: (text: string) => void }) {
  return (
    <div className="chat-empty" data-testid="chat-empty">
      <p className="chat-empty-title">How can I help?</p>
      <p className="muted">Ask about your calendar, contacts or what I remember, or attach an image.</p>
      <div className="chat-suggestions">
        {SUGGESTIONS.map((s) => (
          <button key={s} type="button" className="btn chat-suggestion" onClick={() => onPick(s)}>
            {s}
          </button>
        ))}
      </div>
    </div>
  );
}

function LiveTurnView({ turn, onRetry, onContinue }: { turn: LiveTurn; onRetry: ((turn: LiveTurn) => void) | null; onContinue: (runId: string) => void }) {
  const waiting = (turn.status === "sending" || turn.status === "running") && turn.items.length === 0;
  return (
    <div className="chat-turn" data-testid="live-turn" data-status={turn.status} data-run-id={turn.runId}>
      {turn.user ? <UserMessage text={turn.user.text} images={turn.user.images} /> : null}
      {turn.items.map((item) =>
        item.kind === "text" ? (
          <AssistantMessage key={`t:${item.id}`} text={item.text} streaming={item.streaming} />
        ) : item.approval ? (
          <ApprovalCard key={`a:${item.id}`} approval={item.approval.info} uiSchema={item.approval.uiSchema} onContinue={onContinue} />
        ) : (
          <ToolCall key={`c:${item.id}`} name={item.name} status={item.status} uiSchema={item.result?.uiSchema ?? null} content={item.result?.content ?? null} />
        ),
      )}
      {waiting ? (
        <p className="chat-thinking muted" data-testid="thinking">
          <span className="chat-spinner" aria-hidden="true" /> {turn.stopping ? "Stopping…" : "Thinking…"}
        </p>
      ) : null}
      {turn.status === "cancelled" ? (
        <p className="chat-run-note" data-testid="run-cancelled">
          Stopped: the run was cancelled.
        </p>
      ) : null}
      {turn.error ? (
        <div className="chat-run-error" role="alert" data-testid="run-error">
          <span>{turn.error}</span>
          {turn.status === "failed" && onRetry ? (
            <button type="button" className="btn" data-testid="retry" onClick={() => onRetry(turn)}>
              Retry
            </button>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

function OlderHistory({
  threadId,
  before,
  hasMore,
  scroller,
}: {
  threadId: string;
  before: string;
  hasMore: boolean;
  scroller: React.RefObject<HTMLDivElement | null>;
}) {
  const [days, setDays] = useState<{ day: string; node: React.ReactNode }[]>([]);
  const [cursor, setCursor] = useState(before);
  const [more, setMore] = useState(hasMore);
  const [error, setError] = useState<string | null>(null);
  const [loading, startLoading] = useTransition();
  // Distance from the bottom before older days are put above, so the view does not jump.
  const anchor = useRef<number | null>(null);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (anchor.current === null || !el) return;
    el.scrollTop = el.scrollHeight - anchor.current;
    anchor.current = null;
    document.getElementById(`day-${days[0]?.day}`)?.focus({ preventScroll: true });
  }, [days, scroller]);

  const load = () =>
    startLoading(async () => {
      const result = await loadOlderHistory({ threadId, before: cursor }).catch(() => ({ ok: false as const, message: "Could not load older messages. Try again." }));
      if (!result.ok) return setError(result.message);
      setError(null);
      const el = scroller.current;
      if (el) anchor.current = el.scrollHeight - el.scrollTop;
      const loaded = result.day;
      if (loaded) {
        setDays((d) => [{ day: loaded, node: result.node }, ...d]);
        setCursor(loaded);
      }
      setMore(result.hasMore && loaded !== null);
    });

  return (
    <>
      {more ? (
        <div className="chat-older">
          <button type="button" className="btn" data-testid="load-older" onClick={load} disabled={loading}>
            {loading ? "Loading…" : "Load older messages"}
          </button>
          {error ? (
            <p role="alert" className="error-text">
              {error}
            </p>
          ) : null}
        </div>
      ) : (
        <p className="chat-older muted" data-testid="history-start">
          Beginning of this chat
        </p>
      )}
      {days.map((d) => (
        <div key={d.day}>{d.node}</div>
      ))}
    </>
  );
}
