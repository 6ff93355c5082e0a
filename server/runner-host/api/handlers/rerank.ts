import "server-only";
import { cosineSimilarity, embedMany } from "ai";
import { env } from "../../../env";
import { findModel } from "../../../models/catalog";
import { knowledgeEmbeddingModel } from "../../../knowledge/embeddings";
import { looseQueryText, segmentForSearch } from "../../../knowledge/search-text";
import { logger } from "../../../logger";
import { UPSTREAM_ERROR_STATUS, type HostApiParsedRequest } from "../../../protocols/runner/host-api";
import { rankTextsFullText } from "../../repository";
import type { JsonHandler } from "../call";
import { HostApiFailure } from "../failure";

// models/rerank, for every host: the OpenAI-compatible server's rerank endpoint when the operator
// names a rerank model (LLM_RERANK_MODEL: vLLM, Infinity, Jina and Cohere-style servers answer
// POST {base}/rerank with {results: [{index, relevance_score}]}); otherwise cosine similarity of
// embeddings when knowledge embeddings are configured (LLM_EMBEDDING_MODEL); otherwise the
// full-text ranker the knowledge bases use. The answer says which ranked it (`ranker`), since
// the scores of the three are not on one scale.

type RerankRequest = HostApiParsedRequest<"models/rerank">;
type Ranked = { index: number; score: number }[];
const RERANK_TIMEOUT_MS = 30_000;

async function rerankEndpoint(req: RerankRequest, model: string, signal: AbortSignal): Promise<Ranked> {
  const res = await fetch(`${env.LLM_BASE_URL!.replace(/\/$/, "")}/rerank`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(env.LLM_API_KEY ? { authorization: `Bearer ${env.LLM_API_KEY}` } : {}) },
    body: JSON.stringify({ model, query: req.query, documents: req.documents, top_n: req.top_k ?? req.documents.length }),
    signal: AbortSignal.any([signal, AbortSignal.timeout(RERANK_TIMEOUT_MS)]),
  });
  if (!res.ok) {
    logger.warn({ status: res.status }, "rerank call failed");
    throw new HostApiFailure("runtime_error", `The rerank model call failed (HTTP ${res.status})`, { status: UPSTREAM_ERROR_STATUS, retryable: true, details: { provider_status: res.status } });
  }
  const body = (await res.json()) as { results?: { index?: unknown; relevance_score?: unknown; score?: unknown }[] };
  return (body.results ?? []).flatMap((r) => {
    const score = typeof r.relevance_score === "number" ? r.relevance_score : r.score;
    return typeof r.index === "number" && typeof score === "number" && r.index >= 0 && r.index < req.documents.length ? [{ index: r.index, score }] : [];
  });
}

async function rerankByEmbeddings(req: RerankRequest, signal: AbortSignal): Promise<Ranked | null> {
  const model = knowledgeEmbeddingModel();
  if (!model) return null;
  const { embeddings } = await embedMany({ model, values: [req.query, ...req.documents], abortSignal: signal });
  const [query, ...documents] = embeddings;
  return documents.map((vector, index) => ({ index, score: cosineSimilarity(query!, vector) }));
}

async function rerankFullText(req: RerankRequest): Promise<Ranked> {
  const query = looseQueryText(req.query);
  if (!query) return req.documents.map((_, index) => ({ index, score: 0 }));
  const scores = await rankTextsFullText({ query, texts: req.documents.map(segmentForSearch) });
  return scores.map((score, index) => ({ index, score }));
}

export const rerankModel: JsonHandler<"models/rerank"> = async ({ params, signal }) => {
  if (!findModel(params.model_id)) throw new HostApiFailure("not_found", `Model ${params.model_id} is not configured on this host`);
  let ranked: Ranked;
  let ranker: "rerank_model" | "embeddings" | "full_text";
  if (env.LLM_RERANK_MODEL && env.LLM_BASE_URL) {
    ranked = await rerankEndpoint(params, env.LLM_RERANK_MODEL, signal);
    ranker = "rerank_model";
  } else {
    const byEmbeddings = await rerankByEmbeddings(params, signal);
    ranked = byEmbeddings ?? (await rerankFullText(params));
    ranker = byEmbeddings ? "embeddings" : "full_text";
  }
  // Best first; equal scores keep the documents' order.
  const results = ranked.sort((a, b) => b.score - a.score || a.index - b.index).slice(0, params.top_k ?? params.documents.length);
  return { results, ranker };
};
