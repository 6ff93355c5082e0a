import "server-only";
import type { ArtifactRef } from "../../../protocols/runner/context";
import type { TranscriptItem } from "../../../protocols/runner/host-api";
import { listLiveRunArtifacts } from "../../repository/artifacts";
import { findLastAnswerSeqs, pageTranscript, searchTranscript, type TranscriptRow } from "../../../threads/repository/transcript";
import { artifactRef } from "../../artifact-store";
import { decodeTranscriptCursor, encodeTranscriptCursor } from "../../transcript-cursor";
import type { JsonHandler } from "../call";
import { HostApiFailure } from "../failure";

// history/*: the Transcript (messages) projected to role, content and ids. Metadata, tool
// payloads and signed URLs stay on the host; attachments come as artifact refs on request.
// Which conversations a run may read was decided when it was accepted (resource check).

function item(m: TranscriptRow): TranscriptItem {
  return {
    item_id: m.id,
    cursor: encodeTranscriptCursor(m.seq),
    conversation_id: m.threadId,
    seq: m.seq,
    role: m.role,
    content: m.content,
    message_id: m.messageId,
    run_id: m.runId,
    tool_call_id: m.toolCallId,
    tool_name: m.toolName,
    created_at: m.createdAt.getTime() / 1000,
  };
}

function cursorSeq(name: string, cursor: string | undefined): number | null {
  if (cursor === undefined) return null;
  const seq = decodeTranscriptCursor(cursor);
  if (seq === null) throw new HostApiFailure("invalid_argument", `${name} is not a cursor this host issued`);
  return seq;
}

/**
 * Artifact refs per message: a user message carries its run's input attachments; the
 * artifacts a runner created during a run go with that run's last assistant message.
 */
async function attachArtifacts(threadId: string, rows: TranscriptRow[], items: TranscriptItem[]): Promise<void> {
  const runIds = [...new Set(rows.map((r) => r.runId).filter((id): id is string => id !== null))];
  const [artifacts, lastAnswer] = await Promise.all([listLiveRunArtifacts({ threadId, runIds }), findLastAnswerSeqs({ threadId, runIds })]);
  rows.forEach((m, i) => {
    const refs: ArtifactRef[] = [];
    if (m.runId && m.role === "user") refs.push(...artifacts.filter((a) => a.runId === m.runId && a.attachmentId !== null).map(artifactRef));
    if (m.runId && m.role === "assistant" && lastAnswer.get(m.runId) === m.seq) {
      refs.push(...artifacts.filter((a) => a.runId === m.runId && a.attachmentId === null).map(artifactRef));
    }
    items[i]!.artifacts = refs;
  });
}

export const pageHistory: JsonHandler<"history/page"> = async ({ params, session }) => {
  const threadId = params.conversation_id ?? session.threadId;
  const before = cursorSeq("before_cursor", params.before_cursor);
  const after = cursorSeq("after_cursor", params.after_cursor);
  const backward = params.direction === "backward";
  const rows = await pageTranscript({ threadId, beforeSeq: before, afterSeq: after, backward, limit: params.limit + 1 });
  const hasMore = rows.length > params.limit;
  const page = rows.slice(0, params.limit);
  if (backward) page.reverse();
  const items = page.map(item);
  if (params.include_artifacts && page.length > 0) await attachArtifacts(threadId, page, items);
  return {
    conversation_id: threadId,
    items,
    has_more: hasMore,
    before_cursor: items[0]?.cursor ?? null,
    after_cursor: items.at(-1)?.cursor ?? null,
  };
};

/** Ranked matches in the conversations the run may read (see searchTranscript for the ranking). */
export const searchHistory: JsonHandler<"history/search"> = async ({ params, session }) => {
  const f = params.filters ?? {};
  const conversations = f.conversation_id ? [f.conversation_id] : session.authorization.history.conversation_ids;
  const rows = await searchTranscript({
    threadIds: conversations,
    query: params.query,
    roles: f.roles ?? null,
    since: f.since ?? null,
    until: f.until ?? null,
    limit: params.top_k,
  });
  return { items: rows.map((r) => ({ ...item(r), score: r.score })) };
};
