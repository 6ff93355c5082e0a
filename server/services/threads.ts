import "server-only";
import { AppError } from "../errors";
import { logger } from "../logger";
import type { HistorySnapshot } from "../protocols/ag-ui/history";
import { findRunByClientId, type RunRow } from "../repositories/runs";
import {
  deleteIdleThread,
  findOpenRunId,
  listThreadsPage,
  parseThreadCursor,
  threadIdTaken,
  updateThreadTitle,
  type ThreadFilter,
  type ThreadListItem,
} from "../repositories/thread-list";
import { findThreadForUser } from "../repositories/threads";
import { findWaitingRuns } from "../repositories/run-queue";
import { cancelRun } from "../runs/cancel";
import { flushEvents } from "../runs/event-log";
import { followRun } from "../runs/subscribe";
import { getStorage } from "../storage/driver";
import { getHistoryDay } from "./history";

/** How long deleting a chat waits for its run to stop before giving up with a clear message. */
const STOP_WAIT_MS = 10_000;

export async function listThreads(opts: { userId: string; cursor?: string | null; limit: number; filter?: ThreadFilter }) {
  const cursor = opts.cursor ? parseThreadCursor(opts.cursor) : null;
  if (opts.cursor && !cursor) throw new AppError("BAD_REQUEST", "cursor is not a cursor this list returned", { field: "cursor" });
  return listThreadsPage({ userId: opts.userId, cursor, limit: opts.limit, filter: opts.filter });
}

export async function renameThread(opts: { userId: string; id: string; title: string }): Promise<ThreadListItem> {
  const title = opts.title.replace(/\s+/g, " ").trim();
  if (!title) throw new AppError("BAD_REQUEST", "A chat title cannot be empty", { field: "title" });
  const thread = await updateThreadTitle({ id: opts.id, userId: opts.userId, title });
  if (!thread) throw new AppError("NOT_FOUND", `Thread ${opts.id} not found`);
  return thread;
}

async function activeRunOf(threadId: string, userId: string): Promise<RunRow | null> {
  const runId = await findOpenRunId({ threadId });
  return runId ? findRunByClientId({ userId, runId }) : null;
}

/** Cancels the run and waits, bounded, until its terminal event is durable. */
async function stopRun(run: RunRow): Promise<void> {
  await cancelRun(run);
  const signal = AbortSignal.timeout(STOP_WAIT_MS);
  try {
    for await (const _ of followRun({ runId: run.id, after: 0, signal })) {
      // followRun returns after the terminal event; only its end matters here.
    }
  } catch (err) {
    logger.warn({ err, runId: run.id }, "waiting for a cancelled run to end failed");
  }
  await flushEvents();
}

/**
 * Deletes one of the user's chats. A run still going in it is cancelled first, so the
 * chat never disappears under a run that is writing to it; the runs waiting their turn before it,
 * so none of them starts when it ends.
 */
export async function deleteThread(opts: { userId: string; id: string }): Promise<{ id: string }> {
  const thread = await findThreadForUser({ id: opts.id, userId: opts.userId });
  if (!thread) throw new AppError("NOT_FOUND", `Thread ${opts.id} not found`);
  for (const waiting of await findWaitingRuns({ threadId: thread.id })) await cancelRun(waiting);
  const active = await activeRunOf(thread.id, opts.userId);
  if (active) await stopRun(active);
  const result = await deleteIdleThread({ id: thread.id, userId: opts.userId });
  if (!result.deleted && result.reason === "not_found") throw new AppError("NOT_FOUND", `Thread ${opts.id} not found`);
  if (!result.deleted) {
    throw new AppError("CONFLICT", "This chat still has a run in progress that did not stop in time. Stop it, then delete the chat again.");
  }
  await deleteObjects(result.attachments);
  return { id: thread.id };
}

/**
 * The attachments' bytes, once their rows are gone. A failure is logged, not answered: the thread
 * is deleted, and the object is unreachable without its row (no URL to it is signed again).
 */
async function deleteObjects(objects: { bucket: string; path: string }[]): Promise<void> {
  const storage = getStorage();
  const results = await Promise.allSettled(objects.map((object) => storage.deleteObject(object)));
  results.forEach((result, i) => {
    if (result.status === "rejected") logger.warn({ err: result.reason, object: objects[i] }, "deleting a deleted thread's attachment failed");
  });
}

export type ThreadView = {
  thread: { id: string; title: string } | null;
  history: HistorySnapshot;
  /** The run still going in this thread; its answer is left out of `history` for the page to replay live. */
  activeRun: { runId: string } | null;
};

/**
 * What the chat page shows for a thread: the newest day of history and the run in progress.
 * A thread id nobody has used yet is an empty new chat; someone else's thread is not found.
 */
export async function getThreadView(opts: { userId: string; threadId: string; locale?: string }): Promise<ThreadView> {
  const thread = await findThreadForUser({ id: opts.threadId, userId: opts.userId });
  if (!thread) {
    if (await threadIdTaken({ id: opts.threadId })) throw new AppError("NOT_FOUND", `Thread ${opts.threadId} not found`);
    return { thread: null, history: { scope: "history_day", threadId: opts.threadId, day: null, hasMore: false, messages: [] }, activeRun: null };
  }
  const [history, active] = await Promise.all([
    getHistoryDay({ userId: opts.userId, threadId: thread.id, before: null, locale: opts.locale, reasoning: true }),
    activeRunOf(thread.id, opts.userId),
  ]);
  if (!active) return { thread: { id: thread.id, title: thread.title }, history, activeRun: null };
  // The run's user message is written with the run, in one transaction (same timestamp);
  // everything the run answered comes later and is replayed from its event log instead.
  const since = active.createdAt.getTime();
  const messages = history.messages.filter((m) => m.role === "user" || Date.parse(m.timestamp) < since);
  return { thread: { id: thread.id, title: thread.title }, history: { ...history, messages }, activeRun: { runId: active.runId } };
}
