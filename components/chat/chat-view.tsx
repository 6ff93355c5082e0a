"use client";

import { useCallback, useLayoutEffect, useMemo, useRef, useState, useTransition } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { loadOlderHistory } from "@/app/(chat)/chat/actions";
import { useTRPC } from "@/components/trpc-provider";
import { ApprovalCard, questionOf } from "./approval-card";
import { useI18n } from "@/components/i18n/use-dictionary";
import { localDay } from "@/components/i18n/format";
import { Composer } from "./composer";
import type { LiveTurn } from "./live-turn";
import { MessageActionsContext } from "./message-actions";
import { AssistantMessage, DayHeader, Reasoning, StoppedNote, ToolCall, UserMessage } from "./message-parts";
import { RegenerateIcon } from "./icons";
import { defaultTitle } from "@/server/lib/default-title";
import { useChatRuns, type SendInput } from "./use-chat-runs";
import { StatePanel, StatePanelToggle } from "./state-panel";
import { useSendAnyway } from "./send-anyway-dialog";
import type { Waiting } from "./waiting-approvals";
import { applyStateEvent, hasState, labelOf, type ThreadState } from "./thread-state";
import styles from "./state-panel.module.css";

// How close to the bottom (px) still counts as "reading the newest message".
const STICKY_PX = 80;

type Props = {
  threadId: string;
  title: string | null;
  day: string | null;
  hasMore: boolean;
  hasHistory: boolean;
  /** When the newest message of the history shown was written, to know whether "Today" needs a header. */
  lastMessageAt: string | null;
  /** The newest question in the history shown (its id: the stored message), which Regenerate answers again. */
  lastQuestion: (SendInput & { id: string }) | null;
  activeRunId: string | null;
  /** The shared state the thread keeps (docs/ag-ui.md, "Shared state"), null when none. */
  initialState?: ThreadState | null;
  /** The newest day of history, rendered on the server. */
  children: React.ReactNode;
};

// Long: the chat's page: its runs, scrolling, the state panel and the end actions meet here.
export function ChatView({ threadId, title, day, hasMore, hasHistory, lastMessageAt, lastQuestion, activeRunId, initialState = null, children }: Props) {
  const { t, locale, timeZone, chosenTimeZone } = useI18n();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refreshThreads = useCallback(() => void queryClient.invalidateQueries({ queryKey: trpc.threads.list.pathKey() }), [queryClient, trpc]);
  // A run's end may leave a request waiting (or settle one): the sidebar's inbox reads again.
  const onRunEnded = useCallback(() => {
    refreshThreads();
    void queryClient.invalidateQueries({ queryKey: trpc.approvalPolicy.inbox.pathKey() });
  }, [refreshThreads, queryClient, trpc]);
  const [state, setState] = useState<ThreadState | null>(initialState);
  const [panelOpen, setPanelOpen] = useState(false);
  const onEvent = useCallback((event: Parameters<typeof applyStateEvent>[1]) => setState((s) => applyStateEvent(s, event)), []);
  const router = useRouter();
  // The thread's current branch changed: the page renders it again (the page's key remounts this view).
  const onBranched = useCallback(() => router.refresh(), [router]);
  const { turns, busy, send, stop, retry, decide } = useChatRuns({ threadId, timeZone: chosenTimeZone, locale, activeRunId, onRunStarted: refreshThreads, onRunEnded, onEvent, onBranched });
  const scroller = useRef<HTMLDivElement>(null);
  const sticky = useRef(true);
  const [today] = useState(() => localDay(new Date(), timeZone));

  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && sticky.current) el.scrollTop = el.scrollHeight;
  }, [turns]);

  const open = turns.find((turn) => turn.status === "sending" || turn.status === "running");
  const [forkedAt, setForkedAt] = useState<string | null>(null);
  const onSend = useCallback(
    (input: SendInput) => {
      sticky.current = true;
      if (input.branch) setForkedAt("replace" in input.branch ? input.branch.replace : input.branch.regenerate);
      send(input);
    },
    [send],
  );
  // A request waiting in this thread would be superseded by a new message: ask first.
  const live = useMemo(() => liveWaiting(turns, threadId), [turns, threadId]);
  const sendAnyway = useSendAnyway({ threadId, live, decide });
  const { confirm } = sendAnyway;
  const guardedSend = useCallback((input: SendInput) => confirm(() => onSend(input)), [confirm, onSend]);
  const actions = useMemo(() => ({ send: guardedSend, decide, busy, forkedAt }), [guardedSend, decide, busy, forkedAt]);
  const shownTurns = withoutOldBranch(turns, forkedAt);

  // Regenerate answers the newest question again as a new run: the new answer replaces the old one
  // on the thread's current branch, the old one stays reachable (docs/branches.md).
  const lastTurn = turns.at(-1);
  const question = turns.findLast((turn) => turn.user)?.user ?? lastQuestion;
  const canRegenerate = !busy && question && (lastTurn ? lastTurn.status === "completed" || lastTurn.status === "cancelled" : hasHistory);

  return (
    <MessageActionsContext value={actions}>
      <div className={styles.row}>
        <div className="chat-view" data-testid="chat-view" data-thread-id={threadId}>
          {hasState(state) ? <StatePanelToggle state={state} open={panelOpen} onToggle={() => setPanelOpen((o) => !o)} /> : null}
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
                {title ?? provisionalTitle(turns[0]?.user?.text) ?? t.chat.newChat}
              </h1>
              {day ? <OlderHistory key={threadId} threadId={threadId} before={day} hasMore={hasMore} scroller={scroller} /> : null}
              {children}
              {!hasHistory && turns.length === 0 ? <EmptyState onPick={(text) => guardedSend({ text, images: [] })} /> : null}
              {turns.length > 0 && (!lastMessageAt || localDay(lastMessageAt, timeZone) !== today) ? <DayHeader day={today} /> : null}
              <div className="chat-live" role="log" aria-label={t.chat.currentConversation} aria-busy={busy} data-testid="live-log">
                {shownTurns.map((turn) => (
                  <LiveTurnView key={turn.key} turn={turn} onRetry={busy ? null : retry} />
                ))}
              </div>
              {canRegenerate && question ? (
                <div className="chat-end-actions">
                  <button type="button" className="btn chat-regenerate" data-testid="regenerate" onClick={() => guardedSend({ text: question.text, images: question.images, branch: { regenerate: question.id } })}>
                    <RegenerateIcon size={14} /> {t.chat.regenerate}
                  </button>
                </div>
              ) : null}
            </div>
          </div>
          <Composer threadId={threadId} busy={busy} stopping={open?.stopping ?? false} onSend={onSend} onStop={() => void stop()} confirmSend={confirm} />
          {sendAnyway.dialog}
        </div>
        {panelOpen && hasState(state) ? <StatePanel state={state} onClose={() => setPanelOpen(false)} /> : null}
      </div>
    </MessageActionsContext>
  );
}

/** The requests the page's own runs left waiting (the inbox reads them only later). */
function liveWaiting(turns: LiveTurn[], threadId: string): Waiting[] {
  return turns.flatMap((turn) =>
    turn.items.flatMap((item) =>
      item.kind === "tool" && item.approval?.info.status === "pending" && Date.parse(item.approval.info.expiresAt) > Date.now()
        ? [{ id: item.approval.info.id, threadId, question: questionOf(item.approval.uiSchema) ?? "" }]
        : [],
    ),
  );
}

/** The live turns without those of the old branch: from the one that asked the question forked at, up to the new turn. */
function withoutOldBranch(turns: LiveTurn[], forkedAt: string | null): LiveTurn[] {
  const oldFrom = forkedAt ? turns.findIndex((turn, i) => i < turns.length - 1 && turn.user?.id === forkedAt) : -1;
  return oldFrom >= 0 ? [...turns.slice(0, oldFrom), ...turns.slice(-1)] : turns;
}

/** Until the page reloads, a new chat is called what the server will call it (server/lib/default-title.ts). */
function provisionalTitle(text: string | undefined): string | null {
  return text?.trim() ? defaultTitle(text) : null;
}

function EmptyState({ onPick }: { onPick: (text: string) => void }) {
  const { t } = useI18n();
  return (
    <div className="chat-empty" data-testid="chat-empty">
      <p className="chat-empty-title">{t.chat.emptyTitle}</p>
      <p className="muted">{t.chat.emptyText}</p>
      <div className="chat-suggestions">
        {t.chat.suggestions.map((s) => (
          <button key={s} type="button" className="btn chat-suggestion" data-testid="suggestion" onClick={() => onPick(s)}>
            {s}
          </button>
        ))}
      </div>
    </div>
  );
}

function LiveTurnView({ turn, onRetry }: { turn: LiveTurn; onRetry: ((turn: LiveTurn) => void) | null }) {
  const { t } = useI18n();
  const waiting = (turn.status === "sending" || turn.status === "running") && turn.items.length === 0;
  const error = turn.error ? (turn.error.stop ? t.errors.stopFailed(t.errors[turn.error.kind]) : t.errors[turn.error.kind]) : null;
  return (
    <div className="chat-turn" data-testid="live-turn" data-status={turn.status} data-run-id={turn.runId}>
      {turn.user ? <UserMessage messageId={turn.user.id} text={turn.user.text} images={turn.user.images} /> : null}
      {turn.items.map((item, i) =>
        item.kind === "text" ? (
          <AssistantMessage key={`t:${item.id}`} text={item.text} streaming={item.streaming} />
        ) : item.kind === "reasoning" ? (
          <Reasoning key={`r:${item.id}`} text={item.text} streaming={item.streaming} durationMs={item.durationMs} />
        ) : item.approval ? (
          <ApprovalCard key={`a:${item.id}`} approval={item.approval.info} uiSchema={item.approval.uiSchema} />
        ) : (
          <ToolCall
            key={`c:${item.id}`}
            name={item.target ? t.chat.toolOn(labelOf(item.target.method), item.target.module) : item.name}
            status={item.status}
            uiSchema={item.result?.uiSchema ?? null}
            content={item.result?.content ?? null}
            intermediate={turn.items.slice(i + 1).some((later) => later.kind === "tool")}
          />
        ),
      )}
      {waiting ? (
        <p className="chat-thinking muted" data-testid="thinking">
          <span className="chat-spinner" aria-hidden="true" /> {turn.stopping ? t.chat.stopping : t.chat.thinking}
        </p>
      ) : null}
      {turn.status === "cancelled" ? <StoppedNote /> : null}
      {error ? (
        <div className="chat-run-error" role="alert" data-testid="run-error">
          <span>{error}</span>
          {turn.status === "failed" && onRetry ? (
            <button type="button" className="btn" data-testid="retry" onClick={() => onRetry(turn)}>
              {t.common.retry}
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
  const { t } = useI18n();
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
      const result = await loadOlderHistory({ threadId, before: cursor }).catch(() => ({ ok: false as const, message: t.chat.olderFailed }));
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
            {loading ? t.common.loading : t.chat.loadOlder}
          </button>
          {error ? (
            <p role="alert" className="error-text">
              {error}
            </p>
          ) : null}
        </div>
      ) : (
        <p className="chat-older muted" data-testid="history-start">
          {t.chat.historyStart}
        </p>
      )}
      {days.map((d) => (
        <div key={d.day}>{d.node}</div>
      ))}
    </>
  );
}
