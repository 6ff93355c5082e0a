import "server-only";
import { listKnowledgeBases } from "../../../knowledge/service/knowledge-bases";
import { retrieveKnowledge } from "../../../knowledge/service/retrieve";
import type { JsonHandler } from "../call";

// knowledge/*: the knowledge bases this run was granted (ids frozen in its authorization),
// searched by server/knowledge's ranked retrieval.

export const listKnowledge: JsonHandler<"knowledge/list"> = async ({ session }) => {
  const bases = await listKnowledgeBases({ ids: session.authorization.knowledge_bases.ids });
  return { knowledge_bases: bases.map((kb) => ({ kb_id: kb.id, name: kb.name, description: kb.description, document_count: kb.documentCount })) };
};

export const retrieveFromKnowledge: JsonHandler<"knowledge/retrieve"> = async ({ params }) => {
  const { entries } = await retrieveKnowledge({ kbId: params.kb_id, query: params.query_text, topK: params.top_k, filters: params.filters ?? null });
  return {
    results: entries.map((e) => ({
      chunk_id: e.id,
      document_id: e.document_id,
      document_title: e.document_title,
      content: e.content,
      score: e.score,
      metadata: e.metadata,
    })),
  };
};
