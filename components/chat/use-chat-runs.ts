"use client";

import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import { randomUUID, type BaseEvent } from "@ag-ui/client";
import { applyRunEvent, failTurn, isTurnOpen, newTurn, resetTurn, type LiveImage, type LiveTurn } from "./live-turn";
import type { ChatError } from "./chat-errors";
import { cancelRun, describeError, followRun, isAbortError, startRun, userMessage, type BranchRequest, type RunOutcome } from "./run-client";

type Action =
  | { type: "add"; turn: LiveTurn }
  | { type: "event"; key: string; event: BaseEvent }
  | { type: "reset"; key: string }
  | { type: "fail"; key: string; error: ChatError }
  | { type: "stopping"; key: string; stopping: boolean }
  | { type: "notice"; key: string; error: ChatError };

function reducer(turns: LiveTurn[], action: Action): LiveTurn[] {
  if (action.type === "add") return turns.some((t) => t.key === action.turn.key) ? turns : [...turns, action.turn];
  return turns.map((turn) => {
    if (turn.key !== action.key) return turn;
    switch (action.type) {
      case "event":
        return applyRunEvent(turn, action.event);
      case "reset":
        return resetTurn(turn);
      case "fail":
        return failTurn(turn, action.error);
      case "stopping":
        return { ...turn, stopping: action.stopping };
      case "notice":
        return { ...turn, error: action.error };
    }
  });
}

type Pending = { key: string; runId: string; started: boolean; stopRequested: boolean; abort: AbortController; branched?: boolean };

/** `branch`: the question is an edit of a stored one, or asks a stored one again (docs/branches.md). */
export type SendInput = { text: string; images: LiveImage[]; branch?: BranchRequest };

/**
 * The runs started (or rejoined) on this page: send, stop, retry and reconnect. Only one
 * run is open at a time, as the server allows one per thread.
 */
// Long: one hook: sending, following, stopping and resuming a run share its state.
export function useChatRuns(opts: {
  threadId: string;
  timeZone: string | null;
  locale: string;
  activeRunId: string | null;
  onRunStarted: () => void;
  onRunEnded: () => void;
  /** Every event of the runs followed here, in order (the thread's state is built from them). */
  onEvent?: (event: BaseEvent) => void;
  /** A run that branched the thread (an edit, a regenerate) ended: the page shows the thread's new current branch. */
  onBranched: () => void;
}) {
  const { threadId } = opts;
  const [turns, dispatch] = useReducer(reducer, []);
  const [deciding, setDeciding] = useState(0);
  const pending = useRef<Pending | null>(null);
  const callbacks = useRef(opts);
  const retryInputs = useRef(new Map<string, SendInput>());

  useEffect(() => {
    callbacks.current = opts;
  });

  const handleEvent = useCallback((p: Pending, event: BaseEvent) => {
    dispatch({ type: "event", key: p.key, event });
    callbacks.current.onEvent?.(event);
    if (event.type === "RUN_STARTED") {
      p.started = true;
      callbacks.current.onRunStarted();
      // Stop was pressed before the server had the run; now it can be cancelled.
      if (p.stopRequested) void cancelRun(p.runId).catch(() => undefined);
    }
  }, []);

  const settle = useCallback((p: Pending, outcome: RunOutcome | null, error: unknown) => {
    if (pending.current === p) pending.current = null;
    if (error !== null && !isAbortError(error)) dispatch({ type: "fail", key: p.key, error: { kind: describeError(error) } });
    else if (outcome && !outcome.ended && !p.abort.signal.aborted) {
      dispatch({ type: "fail", key: p.key, error: { kind: "closed" } });
    }
    callbacks.current.onRunEnded();
    if (p.branched && outcome?.started) callbacks.current.onBranched();
  }, []);

  const follow = useCallback(
    async (key: string, runId: string) => {
      const p: Pending = { key, runId, started: false, stopRequested: false, abort: new AbortController() };
      pending.current = p;
      dispatch({ type: "reset", key });
      try {
        const outcome = await followRun({ threadId, runId, signal: p.abort.signal, onEvent: (e) => handleEvent(p, e) });
        settle(p, outcome, null);
      } catch (err) {
        settle(p, null, err);
      }
    },
    [threadId, handleEvent, settle],
  );

  const execute = useCallback(
    async (key: string, runId: string, input: SendInput, messageId: string) => {
      const p: Pending = { key, runId, started: false, stopRequested: false, abort: new AbortController(), branched: input.branch !== undefined };
      pending.current = p;
      let outcome: RunOutcome | null = null;
      let error: unknown = null;
      try {
        outcome = await startRun({
          threadId,
          runId,
          message: userMessage(messageId, input.text, input.images),
          branch: input.branch,
          abortController: p.abort,
          timeZone: callbacks.current.timeZone,
          locale: callbacks.current.locale,
          onEvent: (e) => handleEvent(p, e),
        });
      } catch (err) {
        error = err;
      }
      // The run goes on on the server when only the connection failed: rejoin it from its log.
      const dropped = p.started && !p.abort.signal.aborted && !(outcome?.ended ?? false) && !(error as { status?: number } | null)?.status;
      if (dropped) {
        void follow(key, runId);
        return;
      }
      settle(p, outcome, error);
    },
    [threadId, handleEvent, settle, follow],
  );

  const send = useCallback(
    (input: SendInput) => {
      if (pending.current) return;
      const key = randomUUID();
      const runId = `run_${randomUUID()}`;
      // A regenerated answer's question is the stored one: an edit or a regenerate of it names that one.
      const messageId = input.branch && "regenerate" in input.branch ? input.branch.regenerate : `msg_${randomUUID()}`;
      retryInputs.current.set(key, input);
      dispatch({ type: "add", turn: newTurn({ key, runId, user: { id: messageId, text: input.text, images: input.images } }) });
      void execute(key, runId, input, messageId);
    },
    [execute],
  );

  const retry = useCallback(
    (turn: LiveTurn) => {
      if (pending.current) return;
      const input = retryInputs.current.get(turn.key);
      if (!input || !turn.user) return void follow(turn.key, turn.runId);
      if (turn.started) return send(input);
      // The server may or may not have the run; the same runId is idempotent either way.
      dispatch({ type: "reset", key: turn.key });
      void execute(turn.key, turn.runId, input, turn.user.id);
    },
    [send, follow, execute],
  );

  const stop = useCallback(async () => {
    const p = pending.current;
    if (!p) return;
    p.stopRequested = true;
    dispatch({ type: "stopping", key: p.key, stopping: true });
    if (!p.started) return;
    try {
      await cancelRun(p.runId);
    } catch (err) {
      // The run goes on; say so rather than pretend it stopped.
      dispatch({ type: "stopping", key: p.key, stopping: false });
      dispatch({ type: "notice", key: p.key, error: { kind: describeError(err), stop: true } });
    }
  }, []);

  /** Follows a run started elsewhere on this page (the continuation of an approved request). */
  const join = useCallback(
    (runId: string) => {
      if (pending.current) return;
      const key = `rejoin:${runId}`;
      dispatch({ type: "add", turn: newTurn({ key, runId, user: null }) });
      void follow(key, runId);
    },
    [follow],
  );

  /**
   * Posts an approval decision and follows the run it starts. The chat counts as busy from the
   * click on, so nothing can be sent in the moment between the decision and its run.
   * Resolves true when a continuation is being followed here.
   */
  const decide = useCallback(
    async (post: () => Promise<string | null>) => {
      setDeciding((n) => n + 1);
      try {
        const runId = await post();
        if (!runId || pending.current) return false;
        join(runId);
        return true;
      } finally {
        setDeciding((n) => n - 1);
      }
    },
    [join],
  );

  const { activeRunId } = opts;
  useEffect(() => {
    if (activeRunId) {
      const key = `rejoin:${activeRunId}`;
      dispatch({ type: "add", turn: newTurn({ key, runId: activeRunId, user: null }) });
      void follow(key, activeRunId);
    }
    // Leaving the page closes the stream; the run itself goes on on the server.
    return () => pending.current?.abort.abort();
  }, [activeRunId, follow]);

  const busy = deciding > 0 || turns.some(isTurnOpen);
  return { turns, busy, send, stop, retry, decide };
}
