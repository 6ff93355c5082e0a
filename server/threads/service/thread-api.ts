import "server-only";
import { AppError } from "../../kernel/errors";
import { UUID_PATTERN } from "../../protocols/ag-ui/run-input-rules";
import { listThreadRunsPage } from "../../runs/repository/runs";
import { forkThread as copyThread } from "../repository/thread-fork";
import { findThreadItem, updateThreadLabels, type ThreadListItem, type ThreadMetadata } from "../repository/thread-list";
import { searchMessages } from "../repository/thread-search";
import { decodeCursor, toPage } from "../../admin/service/cursor";
import { deleteThread } from "./threads";

// The threads REST API's use cases beyond the web chat's list, rename and delete (threads.ts):
// one thread, its labels, search, fork, its runs. Always in the caller's name: a thread of anyone
// else is "not found", never "forbidden", so its existence does not leak.

export type { ThreadListItem };

const notFound = (id: string) => new AppError("NOT_FOUND", `Thread ${id} not found`);

/** The user's thread, or 404 (also for an id that is no UUID: no thread has it). */
export async function getThread({ userId, id }: { userId: string; id: string }): Promise<ThreadListItem> {
  const thread = UUID_PATTERN.test(id) ? await findThreadItem({ id, userId }) : null;
  if (!thread) throw notFound(id);
  return thread;
}

/** Renames, relabels or retags the user's thread in one statement; metadata and tags are replaced whole. */
export async function updateThread(opts: { userId: string; id: string; title?: string; metadata?: ThreadMetadata; tags?: string[] }): Promise<ThreadListItem> {
  const title = opts.title?.replace(/\s+/g, " ").trim();
  if (title === "") throw new AppError("BAD_REQUEST", "A chat title cannot be empty", { field: "title" });
  const tags = opts.tags && [...new Set(opts.tags)];
  const thread = UUID_PATTERN.test(opts.id) ? await updateThreadLabels({ id: opts.id, userId: opts.userId, title, metadata: opts.metadata, tags }) : null;
  if (!thread) throw notFound(opts.id);
  return thread;
}

/** A new thread of the user's holding a copy of this one's messages (no runs); 201's body. */
export async function forkThread(opts: { userId: string; id: string; title?: string }): Promise<ThreadListItem> {
  const title = opts.title?.replace(/\s+/g, " ").trim() || undefined;
  const fork = UUID_PATTERN.test(opts.id) ? await copyThread({ id: opts.id, userId: opts.userId, title }) : null;
  if (!fork) throw notFound(opts.id);
  return getThread({ userId: opts.userId, id: fork.id });
}

/** One newest-first page of the thread's runs. */
export async function listThreadRuns(opts: { userId: string; id: string; cursor?: string; limit: number }) {
  const thread = await getThread(opts);
  const rows = await listThreadRunsPage({ threadId: thread.id, after: decodeCursor(opts.cursor), limit: opts.limit });
  return toPage(rows, opts.limit, (run) => ({ at: run.createdAt, id: run.id }));
}

export type MessageHit = {
  threadId: string;
  threadTitle: string;
  messageId: string;
  role: "user" | "assistant";
  createdAt: Date;
  rank: number;
  snippet: string;
  highlights: [number, number][];
};

const MATCH_START = "\u0002";
const MATCH_END = "\u0003";

/** Splits ts_headline's marked text (matches between U+0002 and U+0003) into text and ranges; touching matches merge. */
export function readHighlights(marked: string): { snippet: string; highlights: [number, number][] } {
  let snippet = "";
  const highlights: [number, number][] = [];
  let start = -1;
  for (const ch of marked) {
    if (ch === MATCH_START) start = snippet.length;
    else if (ch !== MATCH_END) snippet += ch;
    else if (start >= 0 && start < snippet.length) {
      const last = highlights.at(-1);
      if (last && last[1] === start) last[1] = snippet.length;
      else highlights.push([start, snippet.length]);
      start = -1;
    }
  }
  return { snippet, highlights };
}

/** The user's messages matching `query`, best first; `cursor` is where the next page starts. */
export async function searchThreadMessages(opts: { userId: string; query: string; cursor?: string; limit: number }) {
  const offset = opts.cursor ? Number(opts.cursor) : 0;
  const rows = await searchMessages({ userId: opts.userId, query: opts.query, offset, limit: opts.limit + 1 });
  const items: MessageHit[] = rows.slice(0, opts.limit).map(({ marked, role, ...row }) => ({ ...row, role: role as MessageHit["role"], ...readHighlights(marked) }));
  return { items, nextCursor: rows.length > opts.limit ? String(offset + opts.limit) : null };
}

/** Deletes the user's thread and what it holds (threads.ts `deleteThread`: a run still going is cancelled first). */
export async function deleteOwnThread(opts: { userId: string; id: string }): Promise<{ id: string; deleted: true }> {
  await getThread(opts);
  const { id } = await deleteThread(opts);
  return { id, deleted: true };
}

export type ThreadHit = { threadId: string; threadTitle: string; messageId: string; snippet: string; highlights: [number, number][]; rank: number };

/**
 * The web chat's sidebar search: the user's threads whose messages match `query`, each once with
 * its best-ranked message's snippet, best first. Reads a few more hits than `limit` so threads
 * with several matching messages do not crowd the others out.
 */
export async function searchThreads(opts: { userId: string; query: string; limit: number }): Promise<ThreadHit[]> {
  const rows = await searchMessages({ userId: opts.userId, query: opts.query, offset: 0, limit: opts.limit * 4 });
  const seen = new Set<string>();
  const hits: ThreadHit[] = [];
  for (const row of rows) {
    if (seen.has(row.threadId) || hits.length >= opts.limit) continue;
    seen.add(row.threadId);
    hits.push({ threadId: row.threadId, threadTitle: row.threadTitle, messageId: row.messageId, rank: row.rank, ...readHighlights(row.marked) });
  }
  return hits;
}
