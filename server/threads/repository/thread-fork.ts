import "server-only";
import { withTransaction } from "../../db";
import type { Db } from "../../kernel/sql";

/**
 * A copy of the user's thread as a new thread of theirs: its title (unless another is given),
 * metadata, tags, shared state and every message it holds now, at the same places (seq), with no runs. Null when
 * the user has no such thread. The thread is locked while it is read, so a message being written
 * by a run lands either wholly in the copy or not at all.
 */
export async function forkThread(opts: { id: string; userId: string; title?: string }): Promise<{ id: string } | null> {
  return withTransaction(async (tx) => {
    const { rows } = await tx.query<{ id: string }>(
      `insert into threads (id, user_id, title, metadata, tags, last_seq, updated_at)
       select gen_random_uuid(), t.user_id, coalesce($3, t.title), t.metadata, t.tags, t.last_seq, now()
       from threads t where t.id = $1 and t.user_id = $2
       for share
       returning id`,
      [opts.id, opts.userId, opts.title ?? null],
    );
    const fork = rows[0];
    if (!fork) return null;
    // Its branches too (docs/branches.md): each copy follows the copy of the message it followed.
    await tx.query(
      `with ids as (select id as old, gen_random_uuid() as new from messages where thread_id = $1)
       insert into messages (id, thread_id, seq, role, message_id, run_id, content, metadata, created_at, parent_id, on_branch)
       select ids.new, $2, m.seq, m.role, m.message_id, null, m.content, m.metadata, m.created_at, p.new, m.on_branch
       from messages m join ids on ids.old = m.id left join ids p on p.old = m.parent_id
       where m.thread_id = $1 order by m.seq`,
      [opts.id, fork.id],
    );
    await tx.query(`update threads set branched = (select branched from threads where id = $1) where id = $2`, [opts.id, fork.id]);
    // The fork goes on from the shared state the thread keeps (docs/ag-ui.md, "Shared state").
    await tx.query(
      `insert into thread_states (thread_id, state, run_id, updated_at)
       select $2, state, null, now() from thread_states where thread_id = $1`,
      [opts.id, fork.id],
    );
    return fork;
  });
}

export type AttachmentObject = { bucket: string; path: string };

/**
 * Removes the attachment rows of a thread being deleted (uploaded into it, or named by its user
 * messages) and returns their objects, whose bytes the caller deletes once the transaction has
 * committed. An attachment a message of another of the user's threads names (a fork's copy) is
 * kept and passed on to that thread instead.
 */
export async function takeThreadAttachments(tx: Db, { threadId, userId }: { threadId: string; userId: string }): Promise<AttachmentObject[]> {
  const { rows } = await tx.query<AttachmentObject & { keptBy: string | null }>(
    `with named as (
       select r->>'bucket' as bucket, r->>'path' as path
       from messages m
       cross join lateral jsonb_array_elements(case jsonb_typeof(m.metadata->'user_message_attachments')
         when 'array' then m.metadata->'user_message_attachments'
         when 'object' then jsonb_build_array(m.metadata->'user_message_attachments')
         else '[]'::jsonb end) r
       where m.thread_id = $1 and m.role = 'user'
     )
     select a.bucket, a.path,
       (select m.thread_id from messages m join threads o on o.id = m.thread_id
        where o.user_id = $2 and o.id <> $1 and m.role = 'user'
          and (m.metadata->'user_message_attachments' @> jsonb_build_object('bucket', a.bucket, 'path', a.path)
               or m.metadata->'user_message_attachments' @> jsonb_build_array(jsonb_build_object('bucket', a.bucket, 'path', a.path)))
        limit 1) as "keptBy"
     from attachments a
     where a.user_id = $2 and (a.thread_id = $1 or (a.bucket, a.path) in (select bucket, path from named))`,
    [threadId, userId],
  );
  for (const kept of rows.filter((r) => r.keptBy)) {
    await tx.query(`update attachments set thread_id = $3 where bucket = $1 and path = $2`, [kept.bucket, kept.path, kept.keptBy]);
  }
  const gone = rows.filter((r) => !r.keptBy).map(({ bucket, path }) => ({ bucket, path }));
  if (gone.length) {
    await tx.query(`delete from attachments where (bucket, path) in (select * from unnest($1::text[], $2::text[]))`, [gone.map((g) => g.bucket), gone.map((g) => g.path)]);
  }
  return gone;
}
