import "server-only";
import { getPool } from "../../db";

// Full-text search over a user's messages with PostgreSQL's own text search: messages.search_vector
// (GIN-indexed) holds to_tsvector('simple', dispatch_search_text(content)), where every Chinese or
// Japanese character is a word of its own (prisma/sql/functions/dispatch_search_text.sql). A query
// goes through websearch_to_tsquery ("quoted phrases", `or`, `-word`); its CJK runs are turned
// into phrases of consecutive characters first, so 天气 finds 今天天气很好 but not 天很气.

const CJK_RUN = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g;

/** The websearch_to_tsquery text for what the user typed: each CJK run a phrase of its characters. */
export function searchQueryText(query: string): string {
  let inQuote = false;
  let out = "";
  let last = 0;
  for (const match of query.matchAll(CJK_RUN)) {
    const before = query.slice(last, match.index);
    inQuote = (before.split('"').length - 1) % 2 === 1 ? !inQuote : inQuote;
    const chars = [...match[0]].join(" ");
    out += `${before} ${inQuote || match[0].length === 1 ? chars : `"${chars}"`} `;
    last = match.index + match[0].length;
  }
  return out + query.slice(last);
}

export type MessageHitRow = {
  threadId: string;
  threadTitle: string;
  messageId: string;
  role: string;
  createdAt: Date;
  rank: number;
  /** The stretch of the message around its best match, each query word in it between U+0002 and U+0003. */
  marked: string;
};

/**
 * The user's messages matching `query`, best first (ts_rank, then newest), each with one snippet
 * (not ts_headline's fragment mode, MaxFragments, which cuts Chinese down to the matched
 * characters alone). `offset` pages: ranks are not a stable key, so a page boundary may shift
 * while new messages arrive.
 */
export async function searchMessages(opts: { userId: string; query: string; offset: number; limit: number }): Promise<MessageHitRow[]> {
  const { rows } = await getPool().query<MessageHitRow>(
    `select m.thread_id as "threadId", t.title as "threadTitle", m.message_id as "messageId", m.role, m.created_at as "createdAt",
            ts_rank(m.search_vector, q.query) as rank,
            replace(ts_headline('simple', dispatch_search_text(m.content), q.query,
                                E'StartSel=\\x02, StopSel=\\x03, MaxWords=35, MinWords=15'),
                    E'\\x01', '') as marked
     from (select websearch_to_tsquery('simple', $2) as query) q
     cross join messages m
     join threads t on t.id = m.thread_id
     where t.user_id = $1 and m.role in ('user', 'assistant') and m.search_vector @@ q.query
     order by rank desc, m.created_at desc, m.id desc
     offset $3 limit $4`,
    [opts.userId, searchQueryText(opts.query), opts.offset, opts.limit],
  );
  return rows;
}
