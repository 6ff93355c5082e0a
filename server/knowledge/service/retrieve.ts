import "server-only";
import { z } from "zod";
import { AppError } from "../../kernel/errors";
import { headingsOf } from "../chunking";
import { embedQuery, knowledgeEmbeddingModel } from "../embeddings";
import { parseInput } from "../input";
import { knowledgeBaseIdSchema } from "./knowledge-bases";
import { searchChunksByText, searchChunksHybrid, type ChunkHit } from "../repository/retrieve";
import { looseQueryText, segmentForSearch } from "../search-text";

export const MAX_TOP_K = 50;
export const MAX_QUERY_CHARS = 2000;

export const retrieveKnowledgeInput = z.object({
  kbId: knowledgeBaseIdSchema,
  query: z.string().trim().min(1, "query must not be empty").max(MAX_QUERY_CHARS, `query is at most ${MAX_QUERY_CHARS} characters`),
  topK: z.number().int("topK must be a whole number").min(1, `topK must be between 1 and ${MAX_TOP_K}`).max(MAX_TOP_K, `topK must be between 1 and ${MAX_TOP_K}`).default(5),
  filters: z
    .object({ document_ids: z.array(z.string().uuid("document_ids holds document ids (UUIDs)")).max(500).optional() })
    .strict()
    .nullish(),
});

export type KnowledgeEntry = {
  id: string;
  content: string;
  score: number;
  document_id: string;
  document_title: string;
  metadata: {
    /** Position of the chunk in its document, from 0. */
    ord: number;
    /** Heading path above the chunk (Markdown), outermost first. */
    headings: string[];
    mime_type: string;
    /** strict: every query term; loose: some terms (fallback); hybrid: embeddings + text. */
    match: ChunkHit["match"];
  };
};

function toEntry(hit: ChunkHit): KnowledgeEntry {
  return {
    id: hit.id,
    content: hit.content,
    score: Math.round(hit.score * 1e6) / 1e6,
    document_id: hit.document_id,
    document_title: hit.document_title,
    metadata: { ord: hit.ord, headings: hit.mime_type === "text/markdown" ? headingsOf(hit.content) : [], mime_type: hit.mime_type, match: hit.match },
  };
}

/**
 * The chunks of one knowledge base that best answer `query`, best first. Full-text ranked
 * (one SQL statement); blended with cosine similarity when an embedding model is configured.
 * NOT_FOUND when the knowledge base does not exist; BAD_REQUEST for invalid input.
 */
export async function retrieveKnowledge(raw: z.input<typeof retrieveKnowledgeInput>): Promise<{ entries: KnowledgeEntry[] }> {
  const input = parseInput(retrieveKnowledgeInput, raw);
  const search = {
    kbId: input.kbId,
    strictText: segmentForSearch(input.query),
    looseText: looseQueryText(input.query),
    topK: input.topK,
    documentIds: input.filters?.document_ids ?? null,
  };
  const model = knowledgeEmbeddingModel();
  const queryVector = model ? await embedQuery(model, input.query) : null;
  const result = queryVector ? await searchChunksHybrid({ ...search, queryVector }) : await searchChunksByText(search);
  if (!result.kbFound) throw new AppError("NOT_FOUND", `Knowledge base ${input.kbId} does not exist`);
  return { entries: result.hits.map(toEntry) };
}
