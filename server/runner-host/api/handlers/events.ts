import "server-only";
import { getPool } from "../../../db";
import type { EventEnvelope } from "../../../protocols/runner/host-api";
import type { JsonHandler } from "../call";
import { HostApiFailure } from "../failure";

// events/*: the EventLog (agent_events) of the run's own conversation. An event elsewhere
// is "not found": runners cannot tell another conversation's ids from missing ones.

type EventRow = {
  id: string;
  threadId: string;
  seq: number;
  eventType: string;
  source: string;
  sourceEventType: string | null;
  data: Record<string, unknown>;
  rawRef: EventEnvelope["raw_ref"];
  createdAt: Date;
};

const COLUMNS = `id, thread_id as "threadId", seq, event_type as "eventType", source, source_event_type as "sourceEventType", data, raw_ref as "rawRef",
  created_at as "createdAt"`;
const PREFIX = "e1:";

const encodeCursor = (seq: number) => Buffer.from(`${PREFIX}${seq}`, "utf8").toString("base64url");

function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const seq = text.startsWith(PREFIX) ? Number(text.slice(PREFIX.length)) : NaN;
  if (!Number.isSafeInteger(seq) || seq < 0) throw new HostApiFailure("invalid_argument", "before_cursor is not a cursor this host issued");
  return seq;
}

function envelope(e: EventRow): EventEnvelope {
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
  const { rows } = await getPool().query<EventRow>(`select ${COLUMNS} from agent_events where id = $1 and thread_id = $2`, [params.event_id, session.threadId]);
  if (!rows[0]) throw new HostApiFailure("not_found", `Event ${params.event_id} not found in this conversation`);
  return { event: envelope(rows[0]) };
};

export const pageEvents: JsonHandler<"events/page"> = async ({ params, session }) => {
  const before = params.before_cursor === undefined ? null : decodeCursor(params.before_cursor);
  const { rows } = await getPool().query<EventRow>(
    `select ${COLUMNS} from agent_events where thread_id = $1 and ($2::int is null or seq < $2) order by seq desc limit $3`,
    [session.threadId, before, params.limit + 1],
  );
  const page = rows.slice(0, params.limit).reverse().map(envelope);
  return { events: page, has_more: rows.length > params.limit, before_cursor: page[0]?.cursor ?? null };
};
