import "server-only";
import { readPool } from "../../db";
import type { MessageModel, ThreadModel, UserModel } from "../../generated/prisma/models";
import type { RunMessageRow } from "./runs";
import type { RunRow } from "../../runs/repository/runs";
import { likePattern, newestFirstPage, sqlFilters } from "../../kernel/sql";

// Read-only queries for the console's thread pages: threads newest-activity first with
// their owner and counts, and a thread's messages and runs, each a bounded page.

export type AdminThreadRow = Pick<ThreadModel, "id" | "title" | "userId" | "createdAt" | "updatedAt"> & {
  userEmail: UserModel["email"];
  messageCount: number;
  runCount: number;
};

export type AdminThreadMessageRow = RunMessageRow & Pick<MessageModel, "runId">;

export type AdminThreadRunRow = Pick<RunRow, "id" | "runId" | "status" | "runner" | "errorCode" | "createdAt"> & { durationMs: number | null };

const THREAD_COLUMNS = `t.id, t.title, t.user_id as "userId", u.email as "userEmail", t.created_at as "createdAt", t.updated_at as "updatedAt",
  (select count(*)::int from messages m where m.thread_id = t.id) as "messageCount",
  (select count(*)::int from runs r where r.thread_id = t.id) as "runCount"`;

export async function listAdminThreadsPage(q: {
  userEmail?: string;
  after: { at: Date; id: string } | null;
  limit: number;
}): Promise<AdminThreadRow[]> {
  const filters = sqlFilters();
  if (q.userEmail) filters.where.push(`u.email ilike ${filters.param(likePattern(q.userEmail))}`);
  return newestFirstPage<AdminThreadRow>(readPool(), filters, {
    select: THREAD_COLUMNS,
    from: "threads t join users u on u.id = t.user_id",
    orderAt: "t.updated_at",
    orderId: "t.id",
    after: q.after,
    limit: q.limit,
  });
}

export async function findAdminThread({ id }: { id: string }): Promise<AdminThreadRow | null> {
  const { rows } = await readPool().query<AdminThreadRow>(
    `select ${THREAD_COLUMNS} from threads t join users u on u.id = t.user_id where t.id = $1`,
    [id],
  );
  return rows[0] ?? null;
}

export async function listThreadMessagesPage({ threadId, afterSeq, limit }: { threadId: string; afterSeq: number; limit: number }): Promise<AdminThreadMessageRow[]> {
  const { rows } = await readPool().query<AdminThreadMessageRow>(
    `select id, seq, role, message_id as "messageId", run_id as "runId", content, metadata, created_at as "createdAt"
     from messages where thread_id = $1 and seq > $2 order by seq limit $3`,
    [threadId, afterSeq, limit],
  );
  return rows;
}

/** The thread's newest runs; the runs table filtered by thread has the rest. */
export async function listThreadRuns({ threadId, limit }: { threadId: string; limit: number }): Promise<AdminThreadRunRow[]> {
  const { rows } = await readPool().query<AdminThreadRunRow>(
    `select id, run_id as "runId", status, runner, error_code as "errorCode", created_at as "createdAt",
       (extract(epoch from (finished_at - started_at)) * 1000)::float8 as "durationMs"
     from runs where thread_id = $1 order by created_at desc, id desc limit $2`,
    [threadId, limit],
  );
  return rows.map((r) => ({ ...r, durationMs: r.durationMs === null ? null : Math.round(r.durationMs) }));
}
