import "server-only";
import { getPool, withTransaction } from "../../db";
import { RUN_EVENTS_SQL } from "../../runs/repository/run-events";
import { takeThreadAttachments, type AttachmentObject } from "./thread-fork";

export type ThreadMetadata = Record<string, string | number | boolean | null>;
export type ThreadListItem = {
  id: string;
  title: string;
  metadata: ThreadMetadata;
  tags: string[];
  createdAt: Date;
  updatedAt: Date;
  running: boolean;
};

/** Keeps only the threads carrying every tag and every metadata key with its value (jsonb containment). */
export type ThreadFilter = { tags?: string[]; metadata?: ThreadMetadata };

const ITEM_COLUMNS = `t.id, t.title, t.metadata, coalesce(t.tags, '{}') as tags, t.created_at as "createdAt", t.updated_at as "updatedAt",
  exists (select 1 from runs r where r.thread_id = t.id and r.status in ('queued', 'running')) as running`;

// Threads are listed newest activity first. updated_at moves, so pages are cut with a keyset
// cursor (updated_at in epoch microseconds, id) rather than an offset; microseconds, because
// PostgreSQL keeps them and a millisecond cursor would skip rows that share a millisecond.
const CURSOR = /^(\d{1,17})_([0-9a-f-]{36})$/;

export function parseThreadCursor(cursor: string): { micros: string; id: string } | null {
  const match = CURSOR.exec(cursor);
  return match ? { micros: match[1]!, id: match[2]! } : null;
}

export async function listThreadsPage({
  userId,
  cursor,
  limit,
  filter = {},
}: {
  userId: string;
  cursor: { micros: string; id: string } | null;
  limit: number;
  filter?: ThreadFilter;
}): Promise<{
  items: ThreadListItem[];
  nextCursor: string | null;
}> {
  const { rows } = await getPool().query<ThreadListItem & { micros: string }>(
    `select ${ITEM_COLUMNS}, (extract(epoch from t.updated_at) * 1000000)::bigint::text as micros
     from threads t
     where t.user_id = $1
       and ($2::bigint is null or (t.updated_at, t.id) < (timestamptz 'epoch' + $2::bigint * interval '1 microsecond', $3::uuid))
       and ($5::text[] is null or t.tags @> $5::text[])
       and ($6::jsonb is null or t.metadata @> $6::jsonb)
     order by t.updated_at desc, t.id desc
     limit $4`,
    [userId, cursor?.micros ?? null, cursor?.id ?? null, limit + 1, filter.tags?.length ? filter.tags : null, filter.metadata ? JSON.stringify(filter.metadata) : null],
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map(({ micros: _micros, ...item }) => item),
    nextCursor: rows.length > limit && last ? `${last.micros}_${last.id}` : null,
  };
}

export async function findThreadItem({ id, userId }: { id: string; userId: string }): Promise<ThreadListItem | null> {
  const { rows } = await getPool().query<ThreadListItem>(`select ${ITEM_COLUMNS} from threads t where t.id = $1 and t.user_id = $2`, [id, userId]);
  return rows[0] ?? null;
}

/** Sets whichever of title, metadata (replaced whole) and tags is given; null when the user has no such thread. */
export async function updateThreadLabels(opts: { id: string; userId: string; title?: string; metadata?: ThreadMetadata; tags?: string[] }): Promise<ThreadListItem | null> {
  const { rows } = await getPool().query<ThreadListItem>(
    `update threads t set title = coalesce($3, t.title), metadata = coalesce($4::jsonb, t.metadata), tags = coalesce($5::text[], t.tags)
     where t.id = $1 and t.user_id = $2
     returning ${ITEM_COLUMNS}`,
    [opts.id, opts.userId, opts.title ?? null, opts.metadata ? JSON.stringify(opts.metadata) : null, opts.tags ?? null],
  );
  return rows[0] ?? null;
}

/** Whether any user has a thread with this id. */
export async function threadIdTaken({ id }: { id: string }): Promise<boolean> {
  const { rowCount } = await getPool().query(`select 1 from threads where id = $1`, [id]);
  return (rowCount ?? 0) > 0;
}

/** The client runId of the thread's run that is still queued or running. */
export async function findOpenRunId({ threadId }: { threadId: string }): Promise<string | null> {
  const { rows } = await getPool().query<{ runId: string }>(
    `select run_id as "runId" from runs where thread_id = $1 and status in ('queued', 'running') order by created_at desc limit 1`,
    [threadId],
  );
  return rows[0]?.runId ?? null;
}

export async function updateThreadTitle({ id, userId, title }: { id: string; userId: string; title: string }): Promise<ThreadListItem | null> {
  const { rows } = await getPool().query<ThreadListItem>(
    `update threads set title = $3 where id = $1 and user_id = $2
     returning id, title, metadata, coalesce(tags, '{}') as tags, created_at as "createdAt", updated_at as "updatedAt", false as running`,
    [id, userId, title],
  );
  return rows[0] ?? null;
}

export type DeleteThreadResult = { deleted: true; attachments: AttachmentObject[] } | { deleted: false; reason: "not_found" | "busy" };

/**
 * Deletes the thread with its messages, runs and events, approvals, and the answers its runs'
 * tool calls recorded (tool_effects names runs without a foreign key), and its attachments' rows
 * (returned with its runs' archived event logs: the caller deletes their bytes after the commit), unless a run of it is still open
 * or has ended so recently that its last events may not be written yet: the event log's
 * writer must never meet a run that vanished under it.
 */
export async function deleteIdleThread({ id, userId }: { id: string; userId: string }): Promise<DeleteThreadResult> {
  return withTransaction(async (tx) => {
    const thread = await tx.query(`select 1 from threads where id = $1 and user_id = $2 for update`, [id, userId]);
    if (thread.rowCount === 0) return { deleted: false, reason: "not_found" };
    const busy = await tx.query(
      `select 1 from runs r
       where r.thread_id = $1
         and (r.status in ('queued', 'running')
              or (r.finished_at > now() - interval '1 minute'
                  and not exists (select 1 from ${RUN_EVENTS_SQL} e where e.run_id = r.id and e.type in ('RUN_FINISHED', 'RUN_ERROR'))
                  and not exists (select 1 from run_event_archives a where a.run_id = r.id)))
       limit 1`,
      [id],
    );
    if ((busy.rowCount ?? 0) > 0) return { deleted: false, reason: "busy" };
    const attachments = await takeThreadAttachments(tx, { threadId: id, userId });
    // Its runs' archived event logs (docs/event-log-lifecycle.md) are objects too: their bytes go with them.
    const archives = await tx.query<AttachmentObject>(
      `select a.bucket, a.path from run_event_archives a join runs r on r.id = a.run_id
       where r.thread_id = $1 and a.bucket is not null and a.path is not null and a.expired_at is null`,
      [id],
    );
    await tx.query(`delete from tool_effects e using runs r where r.thread_id = $1 and e.user_id = r.user_id and e.run_id = r.id::text`, [id]);
    await tx.query(`delete from threads where id = $1`, [id]);
    return { deleted: true, attachments: [...attachments, ...archives.rows] };
  });
}
