import "server-only";
import { getPool } from "../../db";

/**
 * Of the given protocol message ids in a user's thread, those that end a cancelled run: the
 * answer a user stopped, which the chat marks "Stopped" after a reload as it did live.
 */
export async function findStoppedAnswerIds({ userId, threadId, messageIds }: { userId: string; threadId: string; messageIds: string[] }): Promise<string[]> {
  if (messageIds.length === 0) return [];
  const { rows } = await getPool().query<{ messageId: string }>(
    `select m.message_id as "messageId"
       from messages m
       join threads t on t.id = m.thread_id and t.user_id = $2
       join runs r on r.id = m.run_id and r.status = 'cancelled'
      where m.thread_id = $1
        and m.message_id = any($3::text[])
        and m.role <> 'user'
        and m.seq = (select max(last.seq) from messages last where last.thread_id = m.thread_id and last.run_id = m.run_id)`,
    [threadId, userId, messageIds],
  );
  return rows.map((r) => r.messageId);
}
