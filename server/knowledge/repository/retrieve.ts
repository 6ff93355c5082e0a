import "server-only";
import { getPool } from "../../db";

// Ranked chunk search, one SQL statement per query.
//
// Strict match: websearch_to_tsquery (all terms, "quoted phrases", -exclusions), under both
// 'english' and 'simple' (see repository.ts for why chunks carry both). When nothing matches
// strictly, the same statement falls back to any term but stop words, longer terms as
// prefixes. Ranking is ts_rank_cd (cover density: terms close together rank higher) with
// normalization 32, rank / (rank + 1), so text scores sit in [0, 1) and blend with cosines.

export type ChunkHit = {
  id: string;
  content: string;
  score: number;
  match: "strict" | "loose" | "hybrid";
  ord: number;
  document_id: string;
  document_title: string;
  mime_type: string;
};

export type ChunkSearch = {
  kbId: string;
  /** Segmented query text (see search-text.ts) for websearch_to_tsquery. */
  strictText: string;
  /** to_tsquery text of the any-term fallback; "" for none. */
  looseText: string;
  topK: number;
  documentIds: string[] | null;
};

// Hybrid ranking: cosine similarity carries most of the weight (it finds paraphrases), the
// text rank breaks ties toward chunks that share the query's words; a loose (any-term) text
// match counts half a strict one. Without pgvector, a dot product over double precision[]
// in SQL is slow enough per vector that
// similarity is computed for a bounded pool:
// every chunk in scope when there are at most FULL_SCAN_MAX_CHUNKS of them (paraphrases with
// no shared word are found there), else the TEXT_CANDIDATES best any-term text matches.
const COSINE_WEIGHT = 0.7;
const TEXT_WEIGHT = 0.3;
const LOOSE_FACTOR = 0.5;
const FULL_SCAN_MAX_CHUNKS = 400;
const TEXT_CANDIDATES = 200;

// Written out where used (not a CTE column), so the planner can match them to the GIN index.
const STRICT = `(websearch_to_tsquery('english', $2) || websearch_to_tsquery('simple', $2))`;
// The any-term fallback leaves out English stop words ('english' drops them), or "a" would
// match every chunk; a query of nothing but stop words falls back to 'simple'.
const LOOSE = `(case when numnode(to_tsquery('english', $3)) > 0 then to_tsquery('english', $3) else to_tsquery('simple', $3) end)`;

const SCOPE = `s.knowledge_base_id = $1 and ($5::uuid[] is null or s.document_id = any($5::uuid[]))`;

// The result: whether the knowledge base exists, and the hits with their documents, as one row.
const RESULT = `select exists (select 1 from knowledge_bases where id = $1) as "kbFound",
  coalesce((
    select json_agg(json_build_object('id', c.id, 'content', c.content, 'score', h.score, 'match', h.match, 'ord', c.ord,
      'document_id', d.id, 'document_title', d.title, 'mime_type', d.mime_type) order by h.score desc, c.document_id, c.ord)
    from hits h join knowledge_chunks c on c.id = h.id join knowledge_documents d on d.id = c.document_id
  ), '[]'::json) as hits`;

type ResultRow = { kbFound: boolean; hits: ChunkHit[] };

const TEXT_SEARCH = `with strict_hits as (
    select s.id, ts_rank_cd(s.tsv, ${STRICT}, 32) as score, 'strict' as match from knowledge_chunks s
    where ${SCOPE} and s.tsv @@ ${STRICT} order by score desc, s.document_id, s.ord limit $4
  ),
  loose_hits as (
    select s.id, ts_rank_cd(s.tsv, ${LOOSE}, 32) as score, 'loose' as match from knowledge_chunks s
    where not exists (select 1 from strict_hits) and ${SCOPE} and s.tsv @@ ${LOOSE} order by score desc, s.document_id, s.ord limit $4
  ),
  hits as (select * from strict_hits union all select * from loose_hits)
  ${RESULT}`;

const ANY_TERM = `(${STRICT} || ${LOOSE})`;

const HYBRID_SEARCH = `with pool as (
    select s.id from knowledge_chunks s
    where ${SCOPE} and (select count(*) from knowledge_chunks s where ${SCOPE}) <= ${FULL_SCAN_MAX_CHUNKS}
    union
    (select s.id from knowledge_chunks s where ${SCOPE} and s.tsv @@ ${ANY_TERM}
     order by ts_rank_cd(s.tsv, ${ANY_TERM}, 32) desc limit ${TEXT_CANDIDATES})
  ),
  scored as (
    select s.id, s.document_id, s.ord,
      case when s.tsv @@ ${STRICT} then ts_rank_cd(s.tsv, ${STRICT}, 32)
           when s.tsv @@ ${LOOSE} then ${LOOSE_FACTOR} * ts_rank_cd(s.tsv, ${LOOSE}, 32)
           else 0 end as text_score,
      -- Chunks stored without vectors, or with another model's (other length), are not
      -- comparable: they rank by text alone, and only when their words match.
      case when cardinality(s.embedding) = cardinality($6::float8[])
           then (select sum(a * b) from unnest(s.embedding, $6::float8[]) as v(a, b)) end as cosine
    from pool p join knowledge_chunks s on s.id = p.id
  ),
  hits as (
    select id, ${COSINE_WEIGHT} * coalesce(cosine, 0) + ${TEXT_WEIGHT} * text_score as score, 'hybrid' as match
    from scored where cosine is not null or text_score > 0
    order by score desc, document_id, ord limit $4
  )
  ${RESULT}`;

/** Full-text ranked chunks; `kbFound` false when the knowledge base does not exist. */
export async function searchChunksByText(s: ChunkSearch): Promise<ResultRow> {
  const { rows } = await getPool().query<ResultRow>(TEXT_SEARCH, [s.kbId, s.strictText, s.looseText, s.topK, s.documentIds]);
  return rows[0]!;
}

/** Chunks ranked by cosine similarity to `queryVector` (unit length) blended with the text rank. */
export async function searchChunksHybrid(s: ChunkSearch & { queryVector: number[] }): Promise<ResultRow> {
  const { rows } = await getPool().query<ResultRow>(HYBRID_SEARCH, [s.kbId, s.strictText, s.looseText, s.topK, s.documentIds, `{${s.queryVector.join(",")}}`]);
  return rows[0]!;
}
