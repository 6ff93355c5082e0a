import "server-only";
import {
  DeletedThreadSchema,
  ForkThreadSchema,
  ListRunsQuerySchema,
  ListThreadsQuerySchema,
  RunPageSchema,
  SearchPageSchema,
  SearchQuerySchema,
  ThreadPageSchema,
  ThreadSchema,
  UpdateThreadSchema,
  type ThreadWire,
} from "../../protocols/threads/schemas";
import { runView } from "../../runs/service/runs";
import { deleteOwnThread, forkThread, getThread, listThreadRuns, searchThreadMessages, updateThread, type ThreadListItem } from "../../threads/service/thread-api";
import { listThreads } from "../../threads/service/threads";
import { jsonBody } from "../bodies";
import { endpoint } from "../endpoint";
import { jsonResponse } from "../json";

// The caller's threads over REST (docs/threads.md), for API keys and browser sessions alike.

const threadWire = (t: ThreadListItem): ThreadWire => ({ ...t, createdAt: t.createdAt.toISOString(), updatedAt: t.updatedAt.toISOString() });
const THREAD_ID = { threadId: "The thread's id." };

/** GET /api/v1/threads: the caller's threads, newest activity first, filtered by tags and metadata. */
export const listThreadsEndpoint = endpoint({
  method: "GET",
  path: "/api/v1/threads",
  auth: "caller",
  query: ListThreadsQuerySchema,
  doc: { operationId: "listThreads", tag: "Threads", summary: "List threads", description: "Newest activity first, a keyset cursor per page.", responses: { 200: { description: "One page of threads.", json: ThreadPageSchema } }, errors: [400] },
  async handle({ principal, query }) {
    const page = await listThreads({ userId: principal.userId, cursor: query.cursor, limit: query.limit, filter: { tags: query.tag, metadata: query.metadata } });
    return jsonResponse({ items: page.items.map(threadWire), nextCursor: page.nextCursor });
  },
});

/** GET /api/v1/threads/search?q=: the caller's messages matching the query, best first, with highlighted snippets. */
export const searchThreadsEndpoint = endpoint({
  method: "GET",
  path: "/api/v1/threads/search",
  auth: "caller",
  query: SearchQuerySchema,
  doc: {
    operationId: "searchMessages",
    tag: "Threads",
    summary: "Search messages",
    description: "Full-text search over the caller's user and assistant messages (PostgreSQL text search), ranked, with highlighted snippets.",
    responses: { 200: { description: "One page of matching messages, best first.", json: SearchPageSchema } },
    errors: [400],
  },
  async handle({ principal, query }) {
    const page = await searchThreadMessages({ userId: principal.userId, query: query.q, cursor: query.cursor, limit: query.limit });
    return jsonResponse({ items: page.items.map((hit) => ({ ...hit, createdAt: hit.createdAt.toISOString() })), nextCursor: page.nextCursor });
  },
});

/** GET /api/v1/threads/{threadId}. */
export const getThreadEndpoint = endpoint({
  method: "GET",
  path: "/api/v1/threads/[threadId]",
  auth: "caller",
  doc: { operationId: "getThread", tag: "Threads", summary: "Get a thread", params: THREAD_ID, responses: { 200: { description: "The thread.", json: ThreadSchema } }, errors: [404] },
  handle: async ({ principal, params }) => jsonResponse(threadWire(await getThread({ userId: principal.userId, id: params.threadId! }))),
});

/** PATCH /api/v1/threads/{threadId}: title, metadata, tags. */
export const updateThreadEndpoint = endpoint({
  method: "PATCH",
  path: "/api/v1/threads/[threadId]",
  auth: "caller",
  body: jsonBody(UpdateThreadSchema),
  doc: { operationId: "updateThread", tag: "Threads", summary: "Rename, relabel or retag a thread", params: THREAD_ID, responses: { 200: { description: "The thread as it is now.", json: ThreadSchema } }, errors: [400, 404] },
  handle: async ({ principal, params, body }) => jsonResponse(threadWire(await updateThread({ userId: principal.userId, id: params.threadId!, ...body }))),
});

/** DELETE /api/v1/threads/{threadId}: the thread and everything it holds; a run still going is cancelled first. */
export const deleteThreadEndpoint = endpoint({
  method: "DELETE",
  path: "/api/v1/threads/[threadId]",
  auth: "caller",
  doc: {
    operationId: "deleteThread",
    tag: "Threads",
    summary: "Delete a thread",
    description:
      "Deletes the thread with its messages, runs, their events and approvals, and its attachments (their stored bytes too, unless a fork of the thread still shows them). A run still queued or running is cancelled first; 409 if it does not stop within 10 seconds.",
    params: THREAD_ID,
    responses: { 200: { description: "Deleted.", json: DeletedThreadSchema } },
    errors: [404, 409],
  },
  handle: async ({ principal, params }) => jsonResponse(await deleteOwnThread({ userId: principal.userId, id: params.threadId! })),
});

/** POST /api/v1/threads/{threadId}/fork: a new thread of the caller's with a copy of this one's messages. */
export const forkThreadEndpoint = endpoint({
  method: "POST",
  path: "/api/v1/threads/[threadId]/fork",
  auth: "caller",
  body: jsonBody(ForkThreadSchema),
  doc: {
    operationId: "forkThread",
    tag: "Threads",
    summary: "Fork a thread",
    description: "A new thread owned by the caller, holding a copy of the messages the thread holds now (a run in progress contributes what it has completed), its metadata and tags; no runs.",
    params: THREAD_ID,
    responses: { 201: { description: "The new thread.", json: ThreadSchema } },
    errors: [400, 404],
  },
  handle: async ({ principal, params, body }) => jsonResponse(threadWire(await forkThread({ userId: principal.userId, id: params.threadId!, title: body.title })), 201),
});

/** GET /api/v1/threads/{threadId}/runs: the thread's runs, newest first. */
export const listThreadRunsEndpoint = endpoint({
  method: "GET",
  path: "/api/v1/threads/[threadId]/runs",
  auth: "caller",
  query: ListRunsQuerySchema,
  doc: { operationId: "listThreadRuns", tag: "Threads", summary: "List a thread's runs", params: THREAD_ID, responses: { 200: { description: "One page of runs, newest first.", json: RunPageSchema } }, errors: [400, 404] },
  async handle({ principal, params, query }) {
    const page = await listThreadRuns({ userId: principal.userId, id: params.threadId!, cursor: query.cursor, limit: query.limit });
    return jsonResponse({ items: page.items.map(runView), nextCursor: page.nextCursor });
  },
});
