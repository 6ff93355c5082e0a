import "server-only";
import type { EventEnvelope } from "../../../protocols/runner/host-api";
import { findThreadEvent, listThreadEventsBefore, type AgentEventRow } from "../../../runs/repository/agent-events";
import type { JsonHandler } from "../call";
import { HostApiFailure } from "../failure";

// events/*: the EventLog (agent_events) of the run's own conversation. An event elsewhere
// is "not found": runners cannot tell another conversation's ids from missing ones.

const PREFIX = "e1:";

const encodeCursor = (seq: number) => Buffer.from(`${PREFIX}${seq}`, "utf8").toString("base64url");

function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const seq = text.startsWith(PREFIX) ? Number(text.slice(PREFIX.length)) : NaN;
  if (!Number.isSafeInteger(seq) || seq < 0) throw new HostApiFailure("invalid_argument", "before_cursor is not a cursor this host issued");
  return seq;
}

function envelope(e: AgentEventRow): EventEnvelope {
  return {
    event_id: e.id,
    event_type: e.eventType,
    event_time: e.createdAt.getTime() / 1000,
    source: e.source,
    source_event_type: e.sourceEventType,
    conversation_id: e.threadId,
    seq: e.seq,
    cursor: encodeCursor(e.seq),
    data: e.data,
    raw_ref: e.rawRef,
  };
}

export const getEvent: JsonHandler<"events/get"> = async ({ params, session }) => {
  const event = await findThreadEvent({ id: params.event_id, threadId: session.threadId });
  if (!event) throw new HostApiFailure("not_found", `Event ${params.event_id} not found in this conversation`);
  return { event: envelope(event) };
};

export const pageEvents: JsonHandler<"events/page"> = async ({ params, session }) => {
  const before = params.before_cursor === undefined ? null : decodeCursor(params.before_cursor);
  const rows = await listThreadEventsBefore({ threadId: session.threadId, beforeSeq: before, limit: params.limit + 1 });
  const page = rows.slice(0, params.limit).reverse().map(envelope);
  return { events: page, has_more: rows.length > params.limit, before_cursor: page[0]?.cursor ?? null };
};
