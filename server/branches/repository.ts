import "server-only";
import { getPool, withTransaction } from "../db";
import type { BranchPoint } from "../protocols/threads/branches";

// Every statement about a thread's branches (docs/branches.md): messages.parent_id links a message
// to the one it follows, messages.on_branch marks the current branch, threads.branched says the
// thread ever forked.

/**
 * The messages of the current branch created on [dayStart, dayStart + 1 day) that have siblings
 * (messages with the same parent), with their siblings' ids oldest first. Only threads that forked ask.
 */
export async function findBranchPoints({ threadId, dayStart }: { threadId: string; dayStart: string }): Promise<BranchPoint[]> {
  const { rows } = await getPool().query<{ messageId: string; id: string; siblingIds: string[] }>(
    `select m.message_id as "messageId", m.id, s.ids as "siblingIds"
     from messages m
     cross join lateral (select array_agg(s.id order by s.seq) as ids from messages s
                         where s.thread_id = m.thread_id and s.parent_id is not distinct from m.parent_id) s
     where m.thread_id = $1 and m.on_branch and m.created_at >= $2::date and m.created_at < $2::date + interval '1 day'
       and cardinality(s.ids) > 1
     order by m.seq`,
    [threadId, dayStart],
  );
  return rows.map((r) => ({ messageId: r.messageId, index: r.siblingIds.indexOf(r.id), count: r.siblingIds.length, siblingIds: r.siblingIds }));
}

export type SwitchOutcome =
  | { status: "switched"; messageId: string; leafMessageId: string }
  | { status: "not_found" }
  | { status: "no_message" }
  | { status: "busy"; runId: string };

/**
 * Makes the branch through `siblingId` the thread's current one: the message, the messages it
 * follows up to the thread's first, and below it the newest child at each step down to a leaf.
 * Under the thread's lock; refused while the thread has a run in progress (its answer follows the
 * branch it started on). not_found unless the thread is the user's and holds the message.
 */
export async function switchBranch(opts: { threadId: string; userId: string; siblingId: string }): Promise<SwitchOutcome> {
  return withTransaction(async (tx) => {
    const { rows: threads } = await tx.query<{ busyRunId: string | null }>(
      `select (select r.run_id from runs r where r.thread_id = t.id and r.status in ('queued', 'running') order by r.created_at desc limit 1) as "busyRunId"
       from threads t where t.id = $1 and t.user_id = $2 for update`,
      [opts.threadId, opts.userId],
    );
    const thread = threads[0];
    if (!thread) return { status: "not_found" };
    if (thread.busyRunId) return { status: "busy", runId: thread.busyRunId };
    const { rows: found } = await tx.query(`select 1 from messages where id = $2 and thread_id = $1`, [opts.threadId, opts.siblingId]);
    if (found.length === 0) return { status: "no_message" };
    const { rows } = await tx.query<{ messageId: string; leafMessageId: string }>(
      `with recursive
         up as (select id, parent_id from messages where id = $2 and thread_id = $1
                union all select m.id, m.parent_id from messages m join up on m.id = up.parent_id),
         down as (select id, message_id, 0 as depth from messages where id = $2 and thread_id = $1
                  union all select c.id, c.message_id, down.depth + 1 from down
                  cross join lateral (select id, message_id from messages c where c.parent_id = down.id order by c.seq desc limit 1) c),
         path as (select id from up union select id from down),
         moved as (update messages m set on_branch = (m.id in (select id from path))
                   where m.thread_id = $1 and m.on_branch is distinct from (m.id in (select id from path)) returning m.id)
       select (select message_id from messages where id = $2) as "messageId",
              (select message_id from down order by depth desc limit 1) as "leafMessageId",
              (select count(*) from moved) as moved`,
      [opts.threadId, opts.siblingId],
    );
    const row = rows[0]!;
    // A summary of the thread summarizes the branch it was made on.
    await tx.query(`delete from conversation_summaries where thread_id = $1`, [opts.threadId]);
    return { status: "switched", messageId: row.messageId, leafMessageId: row.leafMessageId };
  });
}
